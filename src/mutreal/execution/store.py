"""The run store: one SQLite row per run, keyed by the run's content hash.

Every run is written (and committed) the moment it finishes, so a campaign killed at any point
resumes losing at most the runs that were in flight, and a run whose key is already stored is never
trained again. The main columns (program, seed, outcome, metric) are queryable in SQL; the whole
:class:`~mutreal.execution.records.RunRecord` is kept as JSON beside them. Campaigns (their YAML
configuration and manifest) are kept in a second table, and each campaign's plan (every program x
seed with its run key and status ``planned``/``done``/``lost``) in a third, written before anything
trains (see :mod:`mutreal.execution.plan`); a benchmark's plan holds every bug's runs, each row naming
its bug (its ``group_id``). Export with :meth:`RunStore.to_dataframe` or
:meth:`RunStore.to_csv`.

The file carries its layout's version (``PRAGMA user_version``, :data:`SCHEMA_VERSION`). Opening
checks it and the file's integrity (``PRAGMA quick_check``) before writing a byte: a store of a newer
mutreal, or a damaged one, is refused with a :class:`StoreError` (the CLI prints one ``error:`` line
and exits 2) and is left exactly as it was. A store written before versions existed (version 0, the
same layout as version 1) opens as it is; a store of version 0 or 1 (no plan table) gets the plan
table, and one of version 2 (a plan without groups) gets the ``group_id`` column, at its first write
(:func:`_migrate`), in the transaction of that write; its runs and plans are untouched.

An outcome this mutreal does not know (a newer mutreal's, a hand edit) is a :class:`StoreError`
naming the run and the store, not a silently new category.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from mutreal.execution.records import RunRecord, UnknownOutcome

#: The layout this mutreal writes; a store with a higher version is refused (see the module docstring).
SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    program TEXT NOT NULL,
    label TEXT,
    program_hash TEXT NOT NULL,
    data_hash TEXT,
    config_hash TEXT,
    env_hash TEXT,
    seed INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    metric_name TEXT,
    metric_value REAL,
    direction TEXT,
    wall_time_s REAL,
    fit_time_s REAL,
    evaluate_time_s REAL,
    error_type TEXT,
    error_message TEXT,
    campaign_id TEXT,
    finished_at TEXT,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_program ON runs(program_hash);
CREATE INDEX IF NOT EXISTS runs_campaign ON runs(campaign_id);
CREATE TABLE IF NOT EXISTS campaigns (
    id TEXT PRIMARY KEY,
    started_at TEXT,
    config TEXT,
    manifest TEXT
);
"""

#: Version 2: the plan of each campaign (see :mod:`mutreal.execution.plan`). ``plan_id`` is the hash
#: of the plan's run keys in order, so the same campaign run again finds its plan and resumes it;
#: ``campaign_id`` is the campaign that last planned or executed the row. Version 3 adds ``group_id``:
#: the part of a benchmark's plan the row belongs to (a bug's id; ``NULL`` in a one-campaign plan).
_PLAN_SCHEMA = """
CREATE TABLE IF NOT EXISTS plan (
    plan_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    program TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    campaign_id TEXT,
    group_id TEXT,
    PRIMARY KEY (plan_id, position)
);
CREATE INDEX IF NOT EXISTS plan_key ON plan(plan_id, key);
CREATE INDEX IF NOT EXISTS plan_group ON plan(plan_id, group_id);
"""

#: The columns of ``runs`` (a file without them is not a run store).
_RUN_COLUMNS = frozenset(
    line.split()[0]
    for line in _SCHEMA.split("CREATE TABLE IF NOT EXISTS runs (")[1].split(");")[0].splitlines()
    if line.strip()
)

#: Columns of the flat export (CSV, DataFrame); ``crashed`` is 1 for any outcome but ``ok``.
EXPORT_COLUMNS: tuple[str, ...] = (
    "program",
    "label",
    "seed",
    "outcome",
    "crashed",
    "metric_name",
    "metric",
    "direction",
    "wall_time_s",
    "fit_time_s",
    "evaluate_time_s",
    "error_type",
    "error_message",
    "program_hash",
    "key",
    "campaign_id",
    "finished_at",
)


class StoreWarning(UserWarning):
    """Stored runs left out of a listing because this mutreal cannot read them (the rest is listed)."""


class StoreError(Exception):
    """A store that cannot be used as it is: not SQLite, damaged, or of a newer mutreal.

    Not a ValueError: it is not a wrong option but a file to look at, so the CLI reports it with one
    ``error:`` line (exit 2) rather than a usage message."""


def check_existing_store(path: str | Path) -> int:
    """The schema version of the store at ``path`` after checking it through a read-only connection.

    Raises :class:`StoreError` for a file that is not SQLite, fails ``PRAGMA quick_check`` or has a
    version this mutreal does not know. Nothing is written into the file.
    """
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=60)
    except sqlite3.Error as error:
        raise StoreError(f"{path}: cannot open the run store: {error}") from None
    db.text_factory = lambda data: data.decode("utf-8", "replace")  # damaged text is still reported
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: run store schema version {version} was written by a newer mutreal; this "
                f"mutreal reads versions up to {SCHEMA_VERSION} (upgrade mutreal, or use another --store)"
            )
        problems = [" ".join(str(row[0]).split()) for row in db.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise StoreError(
                f"{path}: the run store is damaged (SQLite quick_check: {'; '.join(problems)}); it was "
                "not changed: restore it from a copy, or use another --store"
            )
        _check_tables(db, path)
        return version
    except sqlite3.DatabaseError as error:  # a CSV, garbage in the header: say so, no traceback
        message = " ".join(str(error).split())
        if "not a database" in message:
            raise StoreError(f"{path}: not a run store (SQLite file): {message}") from None
        raise StoreError(f"{path}: the run store is damaged ({message}); it was not changed") from None
    except UnicodeDecodeError:  # SQLite's own message quotes damaged schema text that is not UTF-8
        raise StoreError(
            f"{path}: the run store is damaged (its schema is unreadable); it was not changed"
        ) from None
    finally:
        db.close()


def _check_tables(db: sqlite3.Connection, path: str | Path) -> None:
    """An existing SQLite file is a run store only with this layout's tables (or with no table yet:
    then it is initialised); another program's database is refused rather than written into."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return
    columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    missing = sorted(_RUN_COLUMNS - columns) if "campaigns" in tables else ["campaigns table"]
    if missing:
        raise StoreError(
            f"{path}: not a run store (tables {', '.join(sorted(tables))}; missing {', '.join(missing)}); "
            "it was not changed"
        )


class RunStore:
    """A SQLite file of runs (``":memory:"`` for a campaign that keeps nothing). Thread-safe.

    Raises :class:`StoreError` for a file that is not a usable store (see the module docstring)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.version = 0  # the file's schema version until this store first writes it
        if self.path != ":memory:":
            if os.path.exists(self.path) and os.path.getsize(self.path) > 0:
                self.version = check_existing_store(self.path)
            else:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            if not self._has_tables():
                self._db.executescript(_SCHEMA + _PLAN_SCHEMA)
                self._set_version()
            self._db.commit()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as error:
            self._db.close()
            raise StoreError(f"{self.path}: cannot use the run store: {error}") from None

    def _has_tables(self) -> bool:
        names = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {"runs", "campaigns"} <= names

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write: the file brought to this layout first, then everything committed together;
        on any error nothing of it stays (the migration included) and the store is as it was."""
        version = self.version
        try:
            self._set_version()
            yield
            self._db.commit()
        except BaseException:
            self._db.rollback()
            self.version = version
            raise

    def _set_version(self) -> None:
        """Bring the file to this layout (within the caller's transaction) and mark its version.

        sqlite3 opens a transaction by itself only before a data change, so the migration's
        CREATE statements would each commit at once: the transaction is opened here, and the
        migration, the version and the caller's write are committed together or not at all."""
        if self.version < SCHEMA_VERSION:
            if not self._db.in_transaction:
                self._db.execute("BEGIN IMMEDIATE")
            _migrate(self._db)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.version = SCHEMA_VERSION

    def _record(self, text: str) -> RunRecord:
        """A stored record; an outcome this mutreal does not know is a :class:`StoreError`."""
        try:
            return RunRecord.from_dict(json.loads(text))
        except UnknownOutcome as error:
            raise StoreError(f"{self.path}: {error}; it was written by another mutreal or by hand") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------------------
    def put(self, record: RunRecord, *, plan_id: str | None = None, plan_status: str | None = None) -> None:
        """Insert or replace one run and commit at once (what makes resuming lose nothing).

        With ``plan_id`` the plan's rows of this run key get ``plan_status`` in the same transaction:
        a signal can never leave a stored run whose plan row says otherwise."""
        row = (
            record.key,
            record.program,
            record.label,
            record.program_hash,
            record.data_hash,
            record.config_hash,
            record.env_hash,
            int(record.seed),
            record.outcome,
            record.metric_name,
            record.metric_value,
            record.direction,
            record.wall_time_s,
            record.fit_time_s,
            record.evaluate_time_s,
            record.error_type,
            record.error_message,
            record.campaign_id,
            record.finished_at,
            json.dumps(record.to_dict()),
        )
        with self._lock, self._writing():
            self._db.execute(f"INSERT OR REPLACE INTO runs VALUES ({','.join('?' * len(row))})", row)
            if plan_id is not None:
                self._db.execute(
                    "UPDATE plan SET status = ? WHERE plan_id = ? AND key = ?", (plan_status, plan_id, record.key)
                )

    def get(self, key: str) -> RunRecord | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM runs WHERE key = ?", (key,)).fetchone()
        return self._record(row[0]) if row else None

    def has(self, key: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone() is not None

    def get_many(self, keys: Iterable[str]) -> dict[str, RunRecord]:
        """The stored records among ``keys``."""
        found: dict[str, RunRecord] = {}
        keys = list(keys)
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                rows = self._db.execute(
                    f"SELECT key, record FROM runs WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ).fetchall()
                for key, text in rows:
                    found[key] = self._record(text)
        return found

    def records(
        self,
        *,
        program_hash: str | None = None,
        program: str | None = None,
        campaign_id: str | None = None,
    ) -> list[RunRecord]:
        """Stored runs, optionally only those of a program (by hash or path) or of a campaign."""
        clauses, params = [], []
        for column, value in (
            ("program_hash", program_hash),
            ("program", program),
            ("campaign_id", campaign_id),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT key, record FROM runs {where} ORDER BY program, seed", params
            ).fetchall()
        found, unreadable = [], []
        for key, text in rows:
            try:
                found.append(self._record(text))
            except StoreError as error:  # one odd row must not hide every other run of an export
                unreadable.append(f"{key} ({error})")
        if unreadable:
            warnings.warn(
                f"{len(unreadable)} stored run(s) left out, not readable by this mutreal: {'; '.join(unreadable)}",
                StoreWarning,
                stacklevel=2,
            )
        return found

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    # -- campaigns -----------------------------------------------------------------------------
    def put_campaign(
        self, campaign_id: str, started_at: str, config_yaml: str, manifest: dict[str, Any]
    ) -> None:
        with self._lock, self._writing():
            self._db.execute(
                "INSERT OR REPLACE INTO campaigns VALUES (?, ?, ?, ?)",
                (campaign_id, started_at, config_yaml, json.dumps(manifest, default=str)),
            )

    def campaigns(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, started_at, config, manifest FROM campaigns ORDER BY started_at"
            ).fetchall()
        return [{"id": r[0], "started_at": r[1], "config": r[2], "manifest": json.loads(r[3])} for r in rows]

    # -- plans -----------------------------------------------------------------------------------
    def put_plan(self, plan_id: str, rows: Sequence[Sequence[Any]], campaign_id: str) -> list[PlanRow]:
        """Write a plan (rows of key, program, seed, status and optionally group) and return it as
        stored, in plan order.

        The same campaign started again has the same ``plan_id`` and rewrites its rows with the
        statuses its runs now have (the runs decide: a ``done`` row is a stored run, or a program that
        needs no training because it cannot be read); rows a benchmark added later
        (:meth:`extend_plan`) stay after them. The plan is committed before this returns, so it is on
        disk before anything trains."""
        with self._lock, self._writing():
            self._db.executemany(
                f"INSERT OR REPLACE INTO plan ({_PLAN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(plan_id, i, *_plan_values(row, campaign_id)) for i, row in enumerate(rows)],
            )
        return self.plan(plan_id)

    def extend_plan(self, plan_id: str, rows: Sequence[Sequence[Any]], campaign_id: str) -> list[PlanRow]:
        """Add rows (key, program, seed, status, group) after a stored plan's last row, in one
        transaction, and return them as stored.

        A run that only an earlier result calls for (a bug's modernized retry) joins the plan this
        way. A row whose group already has its key is updated in place, not added again: the same
        benchmark started again extends its plan once and finds the retry's rows where they were."""
        with self._lock, self._writing():
            placed = {(group, key): position for position, key, group in self._db.execute(
                "SELECT position, key, group_id FROM plan WHERE plan_id = ?", (plan_id,))}  # fmt: skip
            following = max(placed.values(), default=-1) + 1
            positions = []
            for row in rows:
                values = _plan_values(row, campaign_id)
                position = placed.get((values[5], values[0]))
                if position is None:
                    position, following = following, following + 1
                    placed[(values[5], values[0])] = position
                self._db.execute(
                    f"INSERT OR REPLACE INTO plan ({_PLAN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (plan_id, position, *values),
                )
                positions.append(position)
        stored = {row.position: row for row in self.plan(plan_id)}
        return [stored[position] for position in positions]

    def plan(self, plan_id: str, group: str | None = None) -> list[PlanRow]:
        """The rows of a stored plan in plan order, or only those of ``group`` (empty for a plan, or a
        store, without them). A store of version 2 not yet written to has no groups: ``None``."""
        with self._lock:
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(plan)")}
            if not columns:
                return []
            grouped = "group_id" in columns
            where = "plan_id = ?" + (" AND group_id = ?" if group is not None and grouped else "")
            if group is not None and not grouped:
                return []
            rows = self._db.execute(
                f"SELECT position, key, program, seed, status, campaign_id, {'group_id' if grouped else 'NULL'} "
                f"FROM plan WHERE {where} ORDER BY position", (plan_id,) if group is None else (plan_id, group),
            ).fetchall()  # fmt: skip
        return [PlanRow(*row) for row in rows]

    # -- export --------------------------------------------------------------------------------
    def to_rows(self, records: list[RunRecord] | None = None) -> list[dict[str, Any]]:
        """Flat rows (see :data:`EXPORT_COLUMNS`): the format ``mutreal stats`` reads back."""
        return records_to_rows(self.records() if records is None else records)

    def to_dataframe(self, records: list[RunRecord] | None = None) -> Any:
        """A pandas DataFrame with one row per run (pandas imported only here)."""
        import pandas as pd

        return pd.DataFrame(self.to_rows(records), columns=list(EXPORT_COLUMNS))

    def to_csv(self, path: str | Path, records: list[RunRecord] | None = None) -> Path:
        """Write the flat rows as CSV (header + one row per run) and return the path."""
        frame = self.to_dataframe(records)
        frame.to_csv(path, index=False)
        return Path(path)


class PlanRow(NamedTuple):
    """One planned run: its place in the plan, run key, program, seed, status, and its group (a
    benchmark's bug; ``None`` in a one-campaign plan)."""

    position: int
    key: str
    program: str
    seed: int
    status: str
    campaign_id: str | None
    group: str | None = None


#: the columns a plan row is written with, in the order of :func:`_plan_values` after plan id and position
_PLAN_COLUMNS = "plan_id, position, key, program, seed, status, campaign_id, group_id"


def _plan_values(row: Sequence[Any], campaign_id: str) -> tuple[Any, ...]:
    """(key, program, seed, status, campaign, group) of a row given as key, program, seed, status[, group]."""
    key, program, seed, status, *group = row
    return (key, program, int(seed), status, campaign_id, group[0] if group else None)


def _migrate(db: sqlite3.Connection) -> None:
    """Version 0/1 -> 3: add the plan table; version 2 -> 3: add its ``group_id`` column (``NULL``:
    the plans of version 2 are one-campaign plans). Runs and campaigns are the same in every version.

    Statement by statement, not ``executescript`` (which commits): the caller's write and the
    migration land together or not at all."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(plan)")}
    if columns and "group_id" not in columns:
        db.execute("ALTER TABLE plan ADD COLUMN group_id TEXT")
    for statement in _PLAN_SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def records_to_rows(records: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """Flat export rows of records, whether stored or not."""
    rows = []
    for record in records:
        rows.append(
            {
                "program": record.program,
                "label": record.label,
                "seed": record.seed,
                "outcome": record.outcome.value,
                "crashed": int(record.crashed),
                "metric_name": record.metric_name,
                "metric": record.metric_value,
                "direction": record.direction,
                "wall_time_s": record.wall_time_s,
                "fit_time_s": record.fit_time_s,
                "evaluate_time_s": record.evaluate_time_s,
                "error_type": record.error_type,
                "error_message": record.error_message,
                "program_hash": record.program_hash,
                "key": record.key,
                "campaign_id": record.campaign_id,
                "finished_at": record.finished_at,
                "era": record.era,
                "framework": record.framework,
                "rewrites": len(record.rewrites),
            }
        )
    return rows
