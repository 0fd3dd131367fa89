"""The streams fixtures of tests/notifications, for the chat stream tests."""

from tests.notifications.conftest import sse, stream_server  # noqa: F401
