"""Infrastructure under every app: the SQL gateway helpers, the PostgreSQL backend, base errors, middleware."""
