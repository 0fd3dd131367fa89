# IdempotentRequest moved from `games` by state only: its table keeps its name (`db_table`), no row
# moves, and `sqlmigrate api 0001` prints no SQL. `games` 0006 removes it from its own state; its
# content type (and with it permissions and admin log entries) follows.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MOVED = ("idempotentrequest",)


def _relabel(source, target):
    def relabel(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        rows = ContentType.objects.using(schema_editor.connection.alias)
        for model in MOVED:
            if not rows.filter(app_label=target, model=model).exists():
                rows.filter(app_label=source, model=model).update(app_label=target)
        ContentType.objects.clear_cache()

    return relabel


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0005_notify_models_moved'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='IdempotentRequest',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('key', models.CharField(max_length=255)),
                        ('fingerprint', models.CharField(max_length=64)),
                        ('status', models.PositiveSmallIntegerField()),
                        ('body', models.JSONField()),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_idempotentrequest',
                        'constraints': [models.UniqueConstraint(fields=('user', 'key'), name='idempotency_key_unique_per_user')],
                    },
                ),
            ],
        ),
        migrations.RunPython(_relabel("games", "api"), _relabel("api", "games")),
    ]
