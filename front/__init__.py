"""The front: one ASGI application for every topology (see front.app)."""
