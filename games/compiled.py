"""Querysets turned into SQL once per process, then run with new ids: the game page's reads.

Building a query's SQL is most of what Django's ORM costs on a small read:
the game page's seats with their players took 0.63 ms of CPU through the
ORM, of which about 0.1 ms is the database round trip and building the
instances (``docs/PERFORMANCE.md``, section 4). A ``CompiledQuery`` asks the
ORM for the SQL, its parameters, the converters of its columns and the way
its rows become instances once per database connection's vendor, with
placeholder ids, and afterwards only swaps the ids in, runs the SQL through
Django's cursor (so query counting, prepared statements and transactions are
as for any query) and builds the instances as ``ModelIterable`` does.

Integer parameters (ids) and aware datetimes are swapped, each found in the
compiled parameters by its placeholder value (a datetime as the database's
adapter writes it, ``adapt_datetimefield_value``, as the ORM did); a queryset
whose SQL does not carry exactly one parameter per placeholder is refused
when it is first compiled.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db import DatabaseError, connections, models
from django.db.models import signals
from django.db.models.query import (  # type: ignore[attr-defined]  # get_related_populators: private
    ValuesListIterable,
    get_related_populators,
)
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError

M = TypeVar("M")

MAX_ARGUMENTS = 16


def _placeholder(kind: type, k: int) -> Any:
    """The ``k``-th argument's placeholder: a value no real query meets."""
    if kind is int:
        # Within a small integer field's range: the ORM drops a comparison with a
        # value out of the field's range (a move's ``number__lte``), and then the
        # placeholder is not found and the query refused.
        return 30_011 + k
    if kind is datetime:
        return datetime(1901, 2, 3, 4, 5, 6, tzinfo=UTC) + timedelta(seconds=k)
    raise TypeError(f"a compiled query takes ints and datetimes, not {kind.__name__}")


def _adapt(connection: Any, kind: type, value: Any) -> Any:
    """``value`` as the ORM puts it in a query's parameters."""
    if kind is datetime:
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {value!r}")
        return connection.ops.adapt_datetimefield_value(value)
    return int(value)


@dataclass(frozen=True)
class _Plan:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[int, ...]  # for each argument, its index in ``params``
    compiler: SQLCompiler
    converters: Any
    rows_only: bool  # values_list(): the rows themselves
    for_update: bool  # select_for_update(): only inside a transaction, as the ORM insists
    init_list: tuple[str, ...]
    start: int
    end: int


class CompiledQuery(Generic[M]):
    """``build(*arguments)``'s rows, the SQL made by the ORM once per vendor.

    ``kinds`` are the arguments' types, ``int`` (an id) or ``datetime``.
    ``build`` must return the same query for any arguments, each used only as
    a parameter (``filter(game_id=...)``); the rows come as instances (with
    their select_related) or, for ``values_list()``, as the rows themselves;
    no prefetch_related, annotate() or values() of dicts.
    """

    def __init__(self, build: Callable[..., models.QuerySet[Any]], *kinds: type) -> None:
        if not 1 <= len(kinds) <= MAX_ARGUMENTS:
            raise ValueError(f"a compiled query takes 1 to {MAX_ARGUMENTS} arguments")
        self._build = build
        self._kinds = kinds
        self._plans: dict[tuple[str, str], _Plan] = {}
        self._lock = threading.Lock()

    def _plan(self, using: str) -> _Plan:
        connection = connections[using]
        key = (using, connection.vendor)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        placeholders = [_placeholder(kind, k) for k, kind in enumerate(self._kinds)]
        queryset = self._build(*placeholders)
        if queryset._prefetch_related_lookups or queryset._known_related_objects:  # type: ignore[attr-defined]  # private QuerySet state
            raise ValueError("a compiled query cannot prefetch")
        rows_only = queryset._iterable_class is ValuesListIterable
        if queryset.query.annotation_select or (queryset._fields is not None and not rows_only):  # type: ignore[attr-defined]  # private QuerySet state
            raise ValueError("a compiled query gives instances or values_list() rows")
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        slots = []
        for kind, placeholder in zip(self._kinds, placeholders, strict=True):
            adapted = _adapt(connection, kind, placeholder)
            found = [k for k, value in enumerate(params) if value == adapted]
            if len(found) != 1:
                raise ValueError(f"placeholder {adapted} appears {len(found)} times in {sql}")
            slots.append(found[0])
        select, klass_info = compiler.select, compiler.klass_info
        start = end = 0
        init_list: tuple[str, ...] = ()
        if not rows_only:
            fields = klass_info["select_fields"]
            start, end = fields[0], fields[-1] + 1
            init_list = tuple(f[0].target.attname for f in select[start:end])
        plan = _Plan(
            sql=sql,
            params=tuple(params),
            slots=tuple(slots),
            compiler=compiler,
            converters=compiler.get_converters([column for column, _sql, _alias in select]),
            rows_only=rows_only,
            for_update=queryset.query.select_for_update,
            init_list=init_list,
            start=start,
            end=end,
        )
        with self._lock:
            self._plans[key] = plan
        return plan

    def list(self, *arguments: Any, using: str = "default") -> list[M]:
        """What ``list(build(*arguments))`` would give, in its order."""
        if len(arguments) != len(self._kinds):
            raise TypeError(f"expected {len(self._kinds)} arguments, got {len(arguments)}")
        plan = self._plan(using)
        connection = connections[using]
        if plan.for_update and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = list(plan.params)
        for slot, kind, value in zip(plan.slots, self._kinds, arguments, strict=True):
            params[slot] = _adapt(connection, kind, value)
        with connection.cursor() as cursor:
            cursor.execute(plan.sql, params)
            rows: Any = cursor.fetchall()
        if plan.converters:
            rows = plan.compiler.apply_converters(rows, plan.converters)
        if plan.rows_only:
            return [tuple(row) for row in rows]  # type: ignore[misc]
        compiler = plan.compiler
        model = compiler.klass_info["model"]
        populators = get_related_populators(compiler.klass_info, compiler.select, using)
        found = []
        for row in rows:
            obj = model.from_db(using, plan.init_list, row[plan.start : plan.end])
            for populator in populators:
                populator.populate(row, obj)
            found.append(obj)
        return found


_UPDATES: dict[
    tuple[type, tuple[str, ...], str], tuple[str, tuple[models.Field[Any, Any], ...]]
] = {}


def save_fields(obj: models.Model, names: tuple[str, ...] | list[str]) -> None:
    """``obj.save(update_fields=names)``, its ``UPDATE`` written once per model, fields and vendor.

    A move saves the game and the seats it changed: through the ORM each save
    built its SQL again (about 0.3 ms of CPU, twice what the statement costs).
    The same statement, with each field's value prepared as ``save`` prepares
    it, and the same refusal when no row was changed. A model whose ``save``
    is its own, or that something listens to (``pre_save``/``post_save``), is
    saved by ``save`` itself, so that nothing is skipped.
    """
    model = type(obj)
    if (
        model.save is not models.Model.save
        or signals.pre_save.has_listeners(model)
        or signals.post_save.has_listeners(model)
    ):
        obj.save(update_fields=names)
        return
    using = obj._state.db or "default"
    connection = connections[using]
    key = (model, tuple(names), connection.vendor)
    made = _UPDATES.get(key)
    if made is None:
        meta = model._meta
        quote = connection.ops.quote_name
        fields = tuple(_concrete(meta.get_field(name)) for name in names)
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
        primary = _concrete(meta.pk)
        sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(primary.column)} = %s"
        made = _UPDATES[key] = (sql, fields)
    sql, fields = made
    values = [field.get_db_prep_save(field.pre_save(obj, False), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, obj.pk])
        changed = cursor.rowcount
    if changed < 1:
        raise DatabaseError("Save with update_fields did not affect any rows.")


_INSERTS: dict[tuple[type, str], tuple[str, tuple[models.Field[Any, Any], ...]]] = {}


def insert(obj: models.Model) -> None:
    """``obj.save()`` of a new row, its ``INSERT … RETURNING`` written once per model and vendor.

    A move inserts its Move row: through the ORM the statement was built again
    on every move (about 0.3 ms of CPU). The same statement, each field's
    value prepared as ``save`` prepares it (``auto_now_add`` included), the
    database's errors raised as Django's (an ``IntegrityError`` on a taken
    move number), and the row's id and state set as ``save`` sets them. As
    ``save_fields``, a model with its own ``save`` or with save listeners is
    saved by ``save``; so is any model but a plain one (a database-made id, one
    table, no database default, generated or returned column), and a row
    outside a transaction (``save`` marks it for a rollback on error).
    """
    model = type(obj)
    if (
        model.save is not models.Model.save
        or signals.pre_save.has_listeners(model)
        or signals.post_save.has_listeners(model)
        or not obj._state.adding
        or not _plain_table(model)
        or not connections[obj._state.db or "default"].in_atomic_block
    ):
        obj.save(force_insert=True)
        return
    using = obj._state.db or "default"
    connection = connections[using]
    key = (model, connection.vendor)
    made = _INSERTS.get(key)
    if made is None:
        meta = model._meta
        quote = connection.ops.quote_name
        fields = tuple(f for f in meta.concrete_fields if not f.primary_key)
        sql = (
            f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
            f" VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {quote(_concrete(meta.pk).column)}"
        )
        made = _INSERTS[key] = (sql, fields)
    sql, fields = made
    values = [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        (obj.pk,) = cursor.fetchone()
    obj._state.adding = False
    obj._state.db = using


@functools.cache
def _plain_table(model: type[models.Model]) -> bool:
    """One table, an auto id, and every other column written as given."""
    meta = model._meta
    return (
        not meta.parents
        and isinstance(meta.pk, models.AutoField | models.BigAutoField | models.SmallAutoField)
        and all(
            field.db_default is models.NOT_PROVIDED
            and not field.generated
            and not getattr(field, "db_returning", False)
            for field in meta.concrete_fields
            if not field.primary_key
        )
    )


def _concrete(field: Any) -> models.Field[Any, Any]:
    """``field`` if it is a column of the model's table (what ``save(update_fields=…)`` takes)."""
    if not isinstance(field, models.Field) or not field.concrete or field.column is None:
        raise ValueError(f"{field!r} is not a concrete field")
    return field
