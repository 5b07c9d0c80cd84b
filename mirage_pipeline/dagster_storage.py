"""Dagster's PostgreSQL storage, holding its connections instead of opening one per call.

dagster-postgres gives its run, event-log and schedule storages a `NullPool`: every call opens a
connection (a PostgreSQL server process forked, authenticated and given its catalog caches) and
closes it. Dagster's daemon loops make ~50 such calls a second on an idle stack: measured
through `mirage up` (`log_connections`), 2,142 connections from the daemon, its code server and
the run while the 320-page PDF indexed (42 s), ~8 CPU-seconds of PostgreSQL on a 2-core machine
whose every cycle the embedder needs. Dagster's webserver avoids this by switching its storages
to a small pool (`optimize_for_webserver`); this storage does the same in every process that
loads the instance (the daemon, the code servers, runs), and releases the pool when the
instance is disposed (a code server builds an instance for each sensor tick). It checks that
Dagster's tables exist once per process, not once per instance or per call (the dynamic
partitions' table was looked up in the catalog before every read of the partitions, each
sensor tick: a fifth of the tick's time in the code server, py-spy). `dagster.yaml` and the Helm
chart's instance name it under `storage: custom:`, with the config of `storage: postgres:`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from dagster._core.events import DagsterEventType
from dagster._core.events.log import EventLogEntry
from dagster._serdes import ConfigurableClassData
from dagster_postgres import (
    DagsterPostgresStorage,
    PostgresEventLogStorage,
    PostgresRunStorage,
    PostgresScheduleStorage,
)
from dagster_postgres.utils import get_token_provider_from_config, pg_url_from_config
from sqlalchemy.engine import Connection

# Connections a storage part opens beyond the one it keeps, for concurrent calls (the daemon's
# threads); kept connections are recycled hourly.
MAX_OVERFLOW = 4
POOL_RECYCLE_SECONDS = 3600

_checked: set[str] = set()  # databases whose Dagster tables this process has checked
_checked_lock = threading.Lock()
# (database, table or index) this process has found to exist: a code server builds an instance
# for each sensor tick, so remembering it per storage object forgot it every second
_present: set[tuple[str, str]] = set()


class _Pooled:
    """A dagster-postgres storage part on a small pool, closed with the instance."""

    _also: tuple[_Pooled, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # the dagster-postgres part
        self.optimize_for_webserver(  # type: ignore[attr-defined]
            statement_timeout=0,  # no limit (the webserver sets its own)
            pool_recycle=POOL_RECYCLE_SECONDS,
            max_overflow=MAX_OVERFLOW,
        )

    def _remembered(self, key: str, ask: Callable[[], bool]) -> bool:
        """Whether a table or a built index exists: a yes is remembered by the process (once
        there, it stays), a no asked again."""
        entry = (self.postgres_url, key)  # type: ignore[attr-defined]
        if entry in _present:
            return True
        present = bool(ask())
        if present:
            _present.add(entry)
        return present

    def dispose(self) -> None:
        super().dispose()  # type: ignore[misc]
        self._engine.dispose()  # type: ignore[attr-defined]
        for part in self._also:
            part.dispose()


class PooledRunStorage(_Pooled, PostgresRunStorage):
    """dagster-postgres's run storage, pooled."""


# the events a batched run reports per document (materializations and check results)
_ONE_TRANSACTION = frozenset(
    {DagsterEventType.ASSET_MATERIALIZATION, DagsterEventType.ASSET_CHECK_EVALUATION}
)


class PooledEventLogStorage(_Pooled, PostgresEventLogStorage):
    """dagster-postgres's event-log storage, pooled; an event stored in one transaction.

    dagster-postgres stores an event in up to five autocommitted statements (the event, its
    `NOTIFY`, the asset index's tags and latest event, an asset check's execution row), each
    its own commit, and asks whether the asset-check table exists before every check result.
    A batched run reports nine events per document (materializations of five assets and four
    check results): here each of those is one transaction on one connection — the same rows,
    all or none — and the table is asked about once."""

    _held = threading.local()  # the connection of the event being stored, per thread

    def _connect(self) -> AbstractContextManager[Connection]:
        held = getattr(self._held, "conn", None)
        if held is not None and held[0] is self:
            return nullcontext(held[1])
        return super()._connect()

    def store_event(self, event: EventLogEntry) -> None:
        if event.dagster_event_type not in _ONE_TRANSACTION:
            # a run's own events stay short autocommits: a sensor that pages run failures by
            # event id must not see a later id commit first while this one waits on a lock
            return super().store_event(event)
        with super()._connect() as connection:
            conn = connection.execution_options(isolation_level="READ COMMITTED")
            with conn.begin():
                self._held.conn = (self, conn)
                try:
                    super().store_event(event)
                finally:
                    self._held.conn = None

    def has_table(self, table_name: str) -> bool:
        # asked before every read of the dynamic partitions: the sensor's each tick
        parent = super()
        return self._remembered(f"table:{table_name}", lambda: parent.has_table(table_name))

    @property
    def supports_asset_checks(self) -> bool:
        parent = super()
        return self._remembered("asset_check_executions", lambda: parent.supports_asset_checks)


class PooledScheduleStorage(_Pooled, PostgresScheduleStorage):
    """dagster-postgres's schedule storage, pooled; that its tables and indexes exist is asked
    once. Dagster's SQL schedule storage lists the database's tables (a catalog query) on every
    read and write of an instigator's state — the sensor daemon's each tick — to learn whether
    `instigators` exists: a fifth of the idle daemon's time (py-spy)."""

    def _has_instigators_table(self, conn: Connection) -> bool:
        ask = super()._has_instigators_table
        return self._remembered("instigators", lambda: ask(conn))

    def _has_asset_daemon_asset_evaluations_table(self, conn: Connection) -> bool:
        ask = super()._has_asset_daemon_asset_evaluations_table
        return self._remembered("asset_daemon_asset_evaluations", lambda: ask(conn))

    def has_secondary_index_table(self) -> bool:
        return self._remembered("secondary_indexes", super().has_secondary_index_table)

    def has_built_index(self, migration_name: str) -> bool:
        ask = super().has_built_index
        return self._remembered(f"index:{migration_name}", lambda: ask(migration_name))


class PooledPostgresStorage(DagsterPostgresStorage):
    """`DagsterPostgresStorage` whose three parts each keep a connection open (and open up to
    `MAX_OVERFLOW` more for concurrent calls) instead of connecting per call."""

    def __init__(
        self,
        postgres_url: str,
        should_autocreate_tables: bool = True,
        inst_data: ConfigurableClassData | None = None,
        token_provider: Any = None,
    ) -> None:
        # not DagsterPostgresStorage.__init__: it would build unpooled parts
        self.postgres_url = postgres_url
        self.should_autocreate_tables = should_autocreate_tables
        self._inst_data = inst_data
        with _checked_lock:
            create = should_autocreate_tables and postgres_url not in _checked
            parts = {"should_autocreate_tables": create, "token_provider": token_provider}
            self._runs = PooledRunStorage(postgres_url, **parts)
            self._events = PooledEventLogStorage(postgres_url, **parts)
            self._schedules = PooledScheduleStorage(postgres_url, **parts)
            _checked.add(postgres_url)
        # a disposed DagsterInstance disposes its run and event-log storages, not its schedule
        # storage: the run storage closes the schedule storage's pool with its own
        self._runs._also = (self._schedules,)
        super(DagsterPostgresStorage, self).__init__()

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any]
    ) -> PooledPostgresStorage:
        return cls(
            postgres_url=pg_url_from_config(config_value),
            should_autocreate_tables=config_value.get("should_autocreate_tables", True),
            inst_data=inst_data,
            token_provider=get_token_provider_from_config(config_value),
        )

    @property
    def run_storage(self) -> PostgresRunStorage:
        return self._runs

    @property
    def event_log_storage(self) -> PostgresEventLogStorage:
        return self._events

    @property
    def schedule_storage(self) -> PostgresScheduleStorage:
        return self._schedules
