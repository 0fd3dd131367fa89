"""The tasks are sent, scheduled and routed by the names in `core.taskqueue`, and registered under them."""

from __future__ import annotations

import logging

import pytest
from celery import current_app
from django.conf import settings

from core import taskqueue


def _project_tasks() -> dict[str, str]:
    """Registered task name -> the module defining it, for the project's own tasks."""
    return {
        name: task.__module__
        for name, task in current_app.tasks.items()
        if task.__module__.split(".")[0] in ("games", "notify", "tournaments", "api")
    }


def test_every_name_in_the_table_is_a_registered_task_and_back():
    assert set(_project_tasks()) == set(taskqueue.NAMES)
    assert len(set(taskqueue.NAMES)) == len(taskqueue.NAMES)


OLD = {  # the names before the notification tasks moved to `notify`
    "deadline_fire",
    "deadlines_sweep",
    "bots_play",
    "leaderboards_refresh",
    "clock_low_sweep",
    "webhooks_fanout",
    "webhook_attempt",
    "webhooks_sweep",
    "email_digest",
}


def test_the_names_queued_messages_carry_are_still_the_old_ones():
    """A message queued or a beat entry written before the notification tasks moved to `notify`
    still names ``games.tasks.<function>``: every old name keeps that form; a newer task is named
    after the module that defines it."""
    for name in taskqueue.NAMES:
        module, function = name.rsplit(".", 1)
        assert module == ("games.tasks" if function in OLD else current_app.tasks[name].__module__)
        assert current_app.tasks[name].__name__ == function
    assert {n.rsplit(".", 1)[1] for n in taskqueue.NAMES} >= OLD


def test_beat_and_the_routes_name_only_tasks_in_the_table():
    beat = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert beat and beat <= set(taskqueue.NAMES)
    assert set(settings.CELERY_TASK_ROUTES) <= set(taskqueue.NAMES)


def test_a_lost_task_raises_unless_the_sender_says_what_it_costs(monkeypatch, caplog):
    def down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app.tasks[taskqueue.WEBHOOK_ATTEMPT], "apply_async", down)
    with pytest.raises(ConnectionError):
        taskqueue.send(taskqueue.WEBHOOK_ATTEMPT, (1,))
    with caplog.at_level(logging.ERROR, logger="core.taskqueue"):
        taskqueue.send(taskqueue.WEBHOOK_ATTEMPT, (1,), lost="the sweep retries it")
    assert "the sweep retries it" in caplog.text and taskqueue.WEBHOOK_ATTEMPT in caplog.text
