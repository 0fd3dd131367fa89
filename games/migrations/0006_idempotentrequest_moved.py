# IdempotentRequest moved to `api` (its 0001 takes it into its state, table unchanged): here it
# leaves games' state only, so `sqlmigrate games 0006` prints no SQL and no table is dropped.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('api', '0001_initial'),
        ('games', '0005_notify_models_moved'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name='IdempotentRequest'),
            ],
        ),
    ]
