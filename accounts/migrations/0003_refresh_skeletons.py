"""Recompute ``username_skeleton`` now that `accounts.usernames.skeleton` is taken from a name's
capitals (before, a capital and its small letter could have different skeletons: Ә and ә).

As in 0002: in account order, a name whose skeleton an earlier account already holds keeps none.
"""

from django.db import migrations


def _refresh(apps, schema_editor):  # type: ignore[no-untyped-def]
    from accounts import usernames

    User = apps.get_model("accounts", "User")
    User.objects.update(username_skeleton=None)  # first, so that no new value meets a stale one
    seen: set[str] = set()
    for user in User.objects.order_by("pk").only("pk", "username").iterator():
        skeleton = usernames.skeleton(user.username)
        if skeleton in seen:
            continue
        seen.add(skeleton)
        User.objects.filter(pk=user.pk).update(username_skeleton=skeleton)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_players")]
    operations = [migrations.RunPython(_refresh, migrations.RunPython.noop)]
