"""Hand-written SQL for the few queries every request makes, with rows turned into model instances.

The ORM spends most of a move's CPU compiling queries (``as_sql``, ``pre_sql_setup``), the same ones
on every request. The hot reads (a token and its user, a match, its seats) are written once here as
SQL and hydrated exactly as the ORM would: the columns come from the models' own fields, each value
goes through the database's and the field's converters, and instances come from ``Model.from_db``.
``tests/games/test_sql.py`` compares every such read with its ORM twin on SQLite and PostgreSQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, router, transaction
from django.db.models import Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


@cache
def table(model: type[Model]) -> str:
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(model._meta.db_table)


@cache
def columns(model: type[Model], alias: str) -> str:
    """The model's columns, in field order, as ``alias."column"`` (what `hydrate` expects)."""
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    return ", ".join(f"{alias}.{quote(f.column)}" for f in model._meta.concrete_fields)


@cache
def _converters(
    model: type[Model], vendor: str
) -> tuple[tuple[str, ...], tuple[tuple[Any, tuple[Converter, ...]], ...]]:
    connection = connections[DEFAULT_DB_ALIAS]
    names, converters = [], []
    for field in model._meta.concrete_fields:
        col = field.get_col(model._meta.db_table)
        names.append(field.attname)
        field_converters = field.get_db_converters(connection)  # type: ignore[attr-defined]  # not in the stubs
        converters.append((col, tuple(connection.ops.get_db_converters(col) + field_converters)))
    return tuple(names), tuple(converters)


def width(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


def hydrate(model: type[M], row: Sequence[Any], start: int = 0) -> M:
    """The instance ``row[start:start + width(model)]`` describes, as the ORM would build it."""
    connection = connections[DEFAULT_DB_ALIAS]
    names, converters = _converters(model, connection.vendor)
    values = []
    for i, (col, funcs) in enumerate(converters):
        value = row[start + i]
        for func in funcs:
            value = func(value, col, connection)
        values.append(value)
    return model.from_db(DEFAULT_DB_ALIAS, list(names), values)


@cache
def _field_converters(
    model: type[Model], names: tuple[str, ...], vendor: str
) -> tuple[tuple[Any, tuple[Converter, ...]], ...]:
    all_names, converters = _converters(model, vendor)
    return tuple(converters[all_names.index(name)] for name in names)


def convert(model: type[Model], names: tuple[str, ...], values: Sequence[Any]) -> list[Any]:
    """The raw ``values`` of ``model``'s fields ``names`` (attribute names), each through the same
    converters as `hydrate`: what the ORM would have set on an instance, without building one."""
    connection = connections[DEFAULT_DB_ALIAS]
    out = []
    for value, (col, funcs) in zip(values, _field_converters(model, names, connection.vendor), strict=True):
        for func in funcs:
            value = func(value, col, connection)
        out.append(value)
    return out


def hydrate_fields(model: type[M], names: tuple[str, ...], values: Sequence[Any]) -> M:
    """An instance of ``model`` with only the fields ``names`` loaded (attribute names, the primary
    key among them), from their raw ``values``: each through the same converters as `hydrate`. The
    other fields are deferred, as ``.only()`` leaves them: reading one is a query."""
    converted = dict(zip(names, convert(model, names, values), strict=True))
    order = [f.attname for f in model._meta.concrete_fields if f.attname in converted]  # from_db's order
    return model.from_db(DEFAULT_DB_ALIAS, order, [converted[name] for name in order])


def cursor(alias: str = DEFAULT_DB_ALIAS) -> Any:
    """A cursor for the statements here: on PostgreSQL one that prepares them (each is parsed and
    planned once per connection, `core.postgresql`), elsewhere Django's own."""
    connection = connections[alias]
    prepared = getattr(connection, "prepared_cursor", None)
    return prepared() if prepared is not None else connection.cursor()


_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE)\b")  # FOR [NO KEY] UPDATE included: a lock is a writer's


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``sql``. A statement that only reads goes where the database routers send the
    ORM's reads (a lag-tolerant read to the replica, `core.replicas`), any other to the primary."""
    alias = DEFAULT_DB_ALIAS if _WRITES.search(sql) else router.db_for_read(Model) or DEFAULT_DB_ALIAS
    with cursor(alias) as c:
        c.execute(sql, params)
        return list(c.fetchall())


def fetch_together(statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple[Any, ...]]]:
    """The rows of each of ``statements`` (reads, none depending on another's answer), as `fetch`
    would give them one by one. On PostgreSQL they go in one round trip (psycopg's pipeline mode):
    a profile's three reads took three, each waiting for the one before. Each still passes through
    Django's cursor (its wrappers: the metrics, the query log, the deadline on every statement),
    and the wait for their answers is under the deadline too (`core.postgresql`)."""
    if any(_WRITES.search(sql) for sql, _ in statements):
        raise ValueError("fetch_together is for reads only")
    alias = router.db_for_read(Model) or DEFAULT_DB_ALIAS
    connection = connections[alias]
    if len(statements) < 2 or connection.vendor != "postgresql":
        return [fetch(sql, params) for sql, params in statements]
    cursors = [cursor(alias) for _ in statements]
    armed = getattr(connection, "_armed", None)
    try:
        with connection.wrap_database_errors, armed() if armed is not None else nullcontext():
            with connection.connection.pipeline():  # answers are read when the block ends: one sync
                for c, (sql, params) in zip(cursors, statements, strict=True):
                    c.execute(sql, params)
            return [list(c.fetchall()) for c in cursors]
    finally:
        for c in cursors:
            c.close()


def for_update(of: str = "") -> str:
    """The row lock of a writer that changes the row but never its key: `` FOR NO KEY UPDATE`` on
    PostgreSQL, so that it serialises writers without blocking another transaction's foreign-key
    check on the row (``FOR KEY SHARE``, which ``FOR UPDATE`` would block, and deadlock on); nothing
    on SQLite, which locks the whole file on write. ``of``: the alias whose rows are locked, in a join."""
    features = connections[DEFAULT_DB_ALIAS].features
    of = f" OF {of}" if of and features.has_select_for_update_of else ""
    if features.has_select_for_no_key_update:
        return f" FOR NO KEY UPDATE{of}"
    return f" FOR UPDATE{of}" if features.has_select_for_update else ""


def _insert_sql(instance: Model) -> tuple[str, list[Any]]:
    """``INSERT … RETURNING`` the primary key of a new row, and its parameters."""
    model, connection = type(instance), connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    pk = model._meta.pk
    assert pk is not None
    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and getattr(instance, f.attname) is None)]
    params = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    return (
        f"INSERT INTO {table(model)} ({', '.join(quote(f.column) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(pk.column)}"
    ), params


def _update_sql(instance: Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """``UPDATE`` of the named fields by primary key, and its parameters."""
    model, connection = type(instance), connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    pk = model._meta.pk
    assert pk is not None
    fields = [f for f in model._meta.concrete_fields if f.name in names]
    assert len(fields) == len(names), f"unknown fields among {names}"
    params = [f.get_db_prep_save(f.pre_save(instance, False), connection) for f in fields]
    return (
        f"UPDATE {table(model)} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)}"
        f" WHERE {quote(pk.column)} = %s"
    ), [*params, instance.pk]


def inserted(instance: M, pk_value: Any) -> M:
    """``instance`` as saved, its primary key ``pk_value`` (a row inserted by hand-written SQL)."""
    pk = type(instance)._meta.pk
    assert pk is not None
    setattr(instance, pk.attname, pk_value)
    instance._state.adding, instance._state.db = False, DEFAULT_DB_ALIAS
    return instance


def insert(instance: M) -> M:
    """``instance.save()`` of a new row, as one precompiled INSERT … RETURNING its key (no signals:
    nothing here listens to them)."""
    statement, params = _insert_sql(instance)
    return inserted(instance, fetch(statement, params)[0][0])


def update(instance: Model, names: Sequence[str]) -> None:
    """``instance.save(update_fields=names)``, as one precompiled UPDATE by primary key."""
    statement, params = _update_sql(instance, names)
    with cursor() as c:
        c.execute(statement, params)


def insert_and_update(new: M, instance: Model, names: Sequence[str]) -> M:
    """`insert` of ``new`` and `update` of ``instance``, in one round trip on PostgreSQL (the INSERT
    as a data-modifying CTE of the UPDATE); two statements elsewhere."""
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":  # SQLite has no data-modifying CTE
        insert(new)
        update(instance, names)
        return new
    inserting, insert_params = _insert_sql(new)
    updating, update_params = _update_sql(instance, names)
    rows = fetch(f"WITH i AS ({inserting}) {updating} RETURNING (SELECT * FROM i)", [*insert_params, *update_params])
    if not rows:
        raise type(instance).DoesNotExist(f"no {type(instance).__name__} {instance.pk!r} to update")  # type: ignore[attr-defined]
    return inserted(new, rows[0][0])


@contextmanager
def snapshot() -> Iterator[None]:
    """A read-only transaction whose reads all see the same committed state, however many statements
    they take, without holding back writers. PostgreSQL: ``REPEATABLE READ``, its first read fixes
    the snapshot. SQLite (WAL): a ``DEFERRED`` transaction reads one snapshot from its first read and
    takes no write lock (the settings' ``IMMEDIATE`` would make every writer wait for it). Inside a
    transaction already (a test's), the enclosing one decides."""
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    connection.ensure_connection()  # connecting would set the configured mode again
    vendor = connection.vendor
    mode = getattr(connection, "transaction_mode", None)
    if vendor == "sqlite":
        connection.transaction_mode = "DEFERRED"  # type: ignore[attr-defined]  # read by `atomic`'s BEGIN
    try:
        with transaction.atomic():
            if vendor == "sqlite":
                connection.transaction_mode = mode  # type: ignore[attr-defined]  # BEGIN is sent
            elif vendor == "postgresql":
                with connection.cursor() as cur:  # the transaction's first statement, as PostgreSQL requires
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
    finally:
        if vendor == "sqlite":
            connection.transaction_mode = mode  # type: ignore[attr-defined]
