# The first answer's bytes and Content-Type, replayed as sent (issue 23 item 11). Both columns are
# nullable or defaulted: adding them rewrites no row, and rows stored before replay their JSON body.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("api", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="idempotentrequest",
            name="content",
            field=models.BinaryField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="idempotentrequest",
            name="content_type",
            field=models.CharField(blank=True, default="", max_length=100),
        ),
    ]
