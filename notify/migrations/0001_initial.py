# The notification models moved from `games` by state only: their tables keep their names
# (`db_table`), no row moves, and `sqlmigrate notify 0001` prints no SQL. `games` 0005 removes them
# from its own state; their content types (and with them permissions and admin log entries) follow.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MOVED = ("notification", "inboxcounter", "webhook", "delivery", "streamticket")


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
        ('accounts', '0003_refresh_skeletons'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0004_notifications'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='InboxCounter',
                    fields=[
                        ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to=settings.AUTH_USER_MODEL)),
                        ('last', models.PositiveIntegerField(default=0)),
                    ],
                    options={
                        'db_table': 'games_inboxcounter',
                    },
                ),
                migrations.CreateModel(
                    name='Notification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seq', models.PositiveIntegerField()),
                        ('type', models.CharField(max_length=32)),
                        ('payload', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('match', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='games.match')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_notification',
                        'ordering': ['user', 'seq'],
                    },
                ),
                migrations.CreateModel(
                    name='StreamTicket',
                    fields=[
                        ('key', models.CharField(max_length=64, primary_key=True, serialize=False)),
                        ('expires_at', models.DateTimeField()),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_streamticket',
                    },
                ),
                migrations.CreateModel(
                    name='Webhook',
                    fields=[
                        ('id', models.CharField(editable=False, max_length=26, primary_key=True, serialize=False)),
                        ('url', models.URLField(max_length=2000)),
                        ('events', models.JSONField(blank=True, default=list)),
                        ('format', models.CharField(choices=[('standard', 'Standard'), ('discord', 'Discord'), ('slack', 'Slack')], default='standard', max_length=16)),
                        ('secret', models.CharField(max_length=64)),
                        ('active', models.BooleanField(default=True)),
                        ('disabled_reason', models.CharField(blank=True, default='', max_length=64)),
                        ('consecutive_failures', models.PositiveIntegerField(default=0)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='webhooks', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'games_webhook',
                        'ordering': ['created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='Delivery',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('msg_id', models.CharField(max_length=64)),
                        ('type', models.CharField(max_length=32)),
                        ('status', models.CharField(choices=[('pending', 'Pending'), ('delivered', 'Delivered'), ('failed', 'Failed')], default='pending', max_length=16)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('last_status', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('last_error', models.CharField(blank=True, default='', max_length=300)),
                        ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('delivered_at', models.DateTimeField(blank=True, null=True)),
                        ('notification', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='notify.notification')),
                        ('webhook', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deliveries', to='notify.webhook')),
                    ],
                    options={
                        'db_table': 'games_delivery',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='notification',
                    constraint=models.UniqueConstraint(fields=('user', 'seq'), name='notification_seq_unique_per_user'),
                ),
                migrations.AddConstraint(
                    model_name='delivery',
                    constraint=models.UniqueConstraint(fields=('webhook', 'msg_id'), name='delivery_unique_per_webhook'),
                ),
            ],
        ),
        migrations.RunPython(_relabel("games", "notify"), _relabel("notify", "games")),
    ]
