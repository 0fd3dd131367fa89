# The notification models moved to `notify` (its 0001 takes them into its state, tables unchanged):
# here they leave games' state only, so `sqlmigrate games 0005` prints no SQL and no table is dropped.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0004_notifications'),
        ('notify', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name='Delivery'),
                migrations.DeleteModel(name='Notification'),
                migrations.DeleteModel(name='Webhook'),
                migrations.DeleteModel(name='InboxCounter'),
                migrations.DeleteModel(name='StreamTicket'),
            ],
        ),
    ]
