"""Storage of users, sessions, tables, seats and every move.

SQLite by default (``sqlite:///path.db``); a ``postgresql://`` URL uses
PostgreSQL through psycopg (the ``web`` extra installs it). The SQL is the
common subset of both, with ``?`` placeholders rewritten for psycopg and
``RETURNING id`` for new rows. Every write commits at once (a request's
writes together, in one transaction): a move is on disk before anyone hears
of it, so a restarted server replays every unfinished game exactly.

One server per database: the server holds the games in memory, so a second
server on the same database would deal its own moves onto them. ``Store(...,
exclusive=True)`` takes a lock for the store's lifetime - a PostgreSQL
advisory lock, or an exclusive lock on ``<file>.lock`` beside a SQLite file -
and a second server refuses to start. The lock goes with the process, also
when it is killed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id {serial},
    name TEXT NOT NULL UNIQUE,
    password TEXT NOT NULL,
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    expires {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS game_tables (
    id {serial},
    game TEXT NOT NULL,
    preset TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed BIGINT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    host BIGINT REFERENCES users(id),
    created {real} NOT NULL,
    starts_at {real},
    absent TEXT,
    bot_spec TEXT,
    fill_at {real},
    result TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    seat INTEGER NOT NULL,
    user_id BIGINT REFERENCES users(id),
    bot TEXT,
    arrived {real},
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    at {real} NOT NULL,
    PRIMARY KEY (table_id, ply)
);
CREATE INDEX IF NOT EXISTS game_tables_status ON game_tables(status);
CREATE TABLE IF NOT EXISTS guests (
    user_id BIGINT PRIMARY KEY REFERENCES users(id),
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS invites (
    token_hash TEXT PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    created_by BIGINT NOT NULL REFERENCES users(id),
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS chat (
    id {serial},
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    text TEXT NOT NULL,
    at {real} NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_table ON chat(table_id, id);
CREATE TABLE IF NOT EXISTS arena_bots (
    id {serial},
    owner BIGINT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    preset TEXT NOT NULL,
    players INTEGER NOT NULL,
    card TEXT NOT NULL,
    model TEXT NOT NULL,
    digest TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS arena_deals (
    id {serial},
    game TEXT NOT NULL,
    preset TEXT NOT NULL,
    players INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    created {real} NOT NULL,
    UNIQUE (game, preset, players, deal)
);
CREATE TABLE IF NOT EXISTS arena_games (
    deal_id BIGINT NOT NULL REFERENCES arena_deals(id),
    rotation INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (deal_id, rotation)
);
"""

_DIALECTS = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL"},
    "postgresql": {"serial": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"},
}

UNFINISHED = ("waiting", "scheduled", "playing")
LOCK_KEY = 0x636172646C776562  # the PostgreSQL advisory lock of a cardrl web server
GUEST_PASSWORD = "guest"  # a guest's stored password: no scrypt hash, so nothing verifies
LOCK_WAIT = 2.0  # seconds a new server waits for the lock of one that just died


class DatabaseBusyError(RuntimeError):
    """Another server already uses this database."""


class Database:
    """One connection, used from the server's event loop thread only."""

    def __init__(self, url: str, exclusive: bool = False) -> None:
        if not isinstance(url, str):
            raise ValueError(f"a database URL is a string, got {url!r}")
        self._depth = 0
        self._lock_file = None
        if url.startswith("sqlite://"):
            path = url.removeprefix("sqlite://").removeprefix("/") or ":memory:"
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                if exclusive:
                    self._lock_sqlite(path)
            self.dialect = "sqlite"
            self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA busy_timeout=5000")
        elif url.startswith(("postgresql://", "postgres://")):
            try:
                import psycopg
                from psycopg.rows import dict_row
            except ImportError:
                raise ValueError("a PostgreSQL URL needs psycopg: pip install 'psycopg[binary]'") \
                    from None
            self.dialect = "postgresql"
            self.conn = psycopg.connect(url, autocommit=True, row_factory=dict_row)
            if exclusive:
                self._lock_postgresql(url)
        else:
            raise ValueError(f"unsupported database URL {_safe(url)}: use sqlite:///file.db "
                             "or postgresql://user:pass@host/db")
        with self.transaction():
            for statement in _SCHEMA.format(**_DIALECTS[self.dialect]).split(";"):
                if statement.strip():
                    self.conn.execute(statement)

    def _lock_postgresql(self, url: str) -> None:
        """The database's advisory lock. A server killed a moment ago may still hold it
        until PostgreSQL notices its connection is gone: wait a little for that."""
        deadline = time.monotonic() + LOCK_WAIT
        while not self.conn.execute("SELECT pg_try_advisory_lock(%s) AS ok",
                                    (LOCK_KEY,)).fetchone()["ok"]:
            if time.monotonic() > deadline:
                self.conn.close()
                raise DatabaseBusyError(f"another server is using the database {_safe(url)}: "
                                        "one server per database")
            time.sleep(0.1)

    def _lock_sqlite(self, path: str) -> None:
        lock = open(path + ".lock", "a")  # noqa: SIM115 - held open for the store's lifetime
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise DatabaseBusyError(f"another server is using the database {path}: "
                                    "one server per database") from None
        self._lock_file = lock

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """The writes inside commit together or not at all (nested: the outermost decides)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            if self.dialect == "sqlite":
                self.conn.execute("BEGIN")
                try:
                    yield
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
                self.conn.execute("COMMIT")
            else:
                with self.conn.transaction():
                    yield
        finally:
            self._depth = 0

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")

    def execute(self, sql: str, params: tuple = ()) -> None:
        self.conn.execute(self._sql(sql), params)

    def rows(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(self._sql(sql), params).fetchall()]

    def row(self, sql: str, params: tuple = ()) -> dict[str, Any] | None:
        r = self.conn.execute(self._sql(sql), params).fetchone()
        return None if r is None else dict(r)

    def insert(self, sql: str, params: tuple = ()) -> int:
        rows = self.conn.execute(self._sql(sql + " RETURNING id"), params).fetchall()
        return int(rows[0][0] if self.dialect == "sqlite" else rows[0]["id"])

    def close(self) -> None:
        if self.dialect == "postgresql" and not self.conn.closed:
            with contextlib.suppress(Exception):  # free the lock now, not once PostgreSQL
                self.conn.execute("SELECT pg_advisory_unlock_all()")  # sees the socket close
        self.conn.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None


def _safe(url: str) -> str:
    """A database URL without its password, for messages."""
    head, at, tail = url.rpartition("@")
    if not at:
        return repr(url)
    scheme, _, user = head.partition("://")
    if ":" in user:
        user = user.split(":", 1)[0] + ":***"
    return repr(f"{scheme}://{user}@{tail}")


class Store:
    """The queries the server needs, named by what they do."""

    def __init__(self, url: str, exclusive: bool = False) -> None:
        self.db = Database(url, exclusive=exclusive)

    def transaction(self):
        """Group writes: all or none of them are stored."""
        return self.db.transaction()

    # ------------------------------------------------------------- users
    def create_user(self, name: str, password_hash: str, now: float) -> int | None:
        """The new user's id, or None when the name is taken."""
        if self.db.row("SELECT id FROM users WHERE lower(name) = lower(?)", (name,)):
            return None
        return self.db.insert("INSERT INTO users (name, password, created) VALUES (?, ?, ?)",
                              (name, password_hash, now))

    def user_by_name(self, name: str) -> dict | None:
        return self.db.row("SELECT * FROM users WHERE lower(name) = lower(?)", (name,))

    def user_names(self, ids) -> dict[int, str]:
        ids = sorted(set(ids))
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return {r["id"]: r["name"]
                for r in self.db.rows(f"SELECT id, name FROM users WHERE id IN ({marks})",
                                      tuple(ids))}

    def add_session(self, token_hash: str, user_id: int, expires: float) -> None:
        self.db.execute("INSERT INTO sessions (token_hash, user_id, expires) VALUES (?, ?, ?)",
                        (token_hash, user_id, expires))

    def session_user(self, token_hash: str, now: float) -> dict | None:
        """The session's user (``id``, ``name``, ``guest``: True for a guest), or None."""
        row = self.db.row(
            "SELECT users.id, users.name, guests.user_id AS guest FROM sessions"
            " JOIN users ON users.id = sessions.user_id"
            " LEFT JOIN guests ON guests.user_id = users.id"
            " WHERE token_hash = ? AND expires > ?", (token_hash, now))
        if row is not None:
            row["guest"] = row["guest"] is not None
        return row

    def drop_session(self, token_hash: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

    # ------------------------------------------------------------ guests
    def create_guest(self, name: str, now: float) -> int | None:
        """A guest user (no password can sign in as it); None when the name is taken."""
        with self.transaction():
            user_id = self.create_user(name, GUEST_PASSWORD, now)
            if user_id is not None:
                self.db.execute("INSERT INTO guests (user_id, created) VALUES (?, ?)",
                                (user_id, now))
            return user_id

    def is_guest(self, user_id: int) -> bool:
        return self.db.row("SELECT user_id FROM guests WHERE user_id = ?", (user_id,)) \
            is not None

    def adopt_guest(self, user_id: int, name: str, password_hash: str) -> bool:
        """The guest becomes an account of ``name``, keeping its id and so its tables;
        False (nothing changed) when the name is taken."""
        with self.transaction():
            taken = self.db.row("SELECT id FROM users WHERE lower(name) = lower(?) AND id <> ?",
                                (name, user_id))
            if taken is not None or not self.is_guest(user_id):
                return False
            self.db.execute("UPDATE users SET name = ?, password = ? WHERE id = ?",
                            (name, password_hash, user_id))
            self.db.execute("DELETE FROM guests WHERE user_id = ?", (user_id,))
            return True

    # ----------------------------------------------------- invites, chat
    def add_invite(self, token_hash: str, table_id: int, user_id: int, now: float) -> None:
        self.db.execute("INSERT INTO invites (token_hash, table_id, created_by, created) "
                        "VALUES (?, ?, ?, ?)", (token_hash, table_id, user_id, now))

    def invite(self, token_hash: str) -> dict | None:
        return self.db.row("SELECT * FROM invites WHERE token_hash = ?", (token_hash,))

    def invite_count(self, table_id: int) -> int:
        return len(self.db.rows("SELECT token_hash FROM invites WHERE table_id = ?",
                                (table_id,)))

    def add_chat(self, table_id: int, user_id: int, text: str, at: float) -> None:
        self.db.execute("INSERT INTO chat (table_id, user_id, text, at) VALUES (?, ?, ?, ?)",
                        (table_id, user_id, text, at))

    def chat(self, table_id: int, limit: int) -> list[dict]:
        """The table's last ``limit`` chat lines, oldest first, with the writer's name."""
        rows = self.db.rows(
            "SELECT chat.user_id, users.name, chat.text, chat.at FROM chat"
            " JOIN users ON users.id = chat.user_id WHERE table_id = ?"
            " ORDER BY chat.id DESC LIMIT ?", (table_id, limit))
        return rows[::-1]

    # ------------------------------------------------------------ tables
    def create_table(self, *, game: str, preset: str, rules: dict, seed: int, kind: str,
                     status: str, host: int | None, created: float, starts_at: float | None,
                     absent: str | None, bot_spec: str | None, fill_at: float | None,
                     seats: list[tuple[int | None, str | None]]) -> int:
        with self.transaction():
            return self._create_table(game, preset, rules, seed, kind, status, host, created,
                                      starts_at, absent, bot_spec, fill_at, seats)

    def _create_table(self, game, preset, rules, seed, kind, status, host, created, starts_at,
                      absent, bot_spec, fill_at, seats) -> int:
        table_id = self.db.insert(
            "INSERT INTO game_tables (game, preset, rules, seed, kind, status, host, created,"
            " starts_at, absent, bot_spec, fill_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game, preset, json.dumps(rules), seed, kind, status, host, created, starts_at,
             absent, bot_spec, fill_at))
        for seat, (user_id, bot) in enumerate(seats):
            self.db.execute("INSERT INTO seats (table_id, seat, user_id, bot) VALUES (?, ?, ?, ?)",
                            (table_id, seat, user_id, bot))
        return table_id

    def set_seat(self, table_id: int, seat: int, user_id: int | None, bot: str | None,
                 arrived: float | None = None) -> None:
        self.db.execute("UPDATE seats SET user_id = ?, bot = ?, arrived = ? "
                        "WHERE table_id = ? AND seat = ?", (user_id, bot, arrived, table_id, seat))

    def set_status(self, table_id: int, status: str, result: dict | None = None) -> None:
        self.db.execute("UPDATE game_tables SET status = ?, result = ? WHERE id = ?",
                        (status, None if result is None else json.dumps(result), table_id))

    def set_bot_spec(self, table_id: int, bot_spec: str | None) -> None:
        self.db.execute("UPDATE game_tables SET bot_spec = ? WHERE id = ?", (bot_spec, table_id))

    def set_fill_at(self, table_id: int, fill_at: float | None) -> None:
        self.db.execute("UPDATE game_tables SET fill_at = ? WHERE id = ?", (fill_at, table_id))

    def add_move(self, table_id: int, ply: int, seat: int, action: int, at: float) -> None:
        self.db.execute("INSERT INTO moves (table_id, ply, seat, action, at) "
                        "VALUES (?, ?, ?, ?, ?)", (table_id, ply, seat, action, at))

    def table(self, table_id: int) -> dict | None:
        """A table row with its ``seats`` and ``moves`` (ply order), or None."""
        row = self.db.row("SELECT * FROM game_tables WHERE id = ?", (table_id,))
        if row is None:
            return None
        row["rules"] = json.loads(row["rules"])
        row["result"] = json.loads(row["result"]) if row["result"] else None
        row["seats"] = self.db.rows("SELECT * FROM seats WHERE table_id = ? ORDER BY seat",
                                    (table_id,))
        row["moves"] = [(r["seat"], r["action"]) for r in self.db.rows(
            "SELECT seat, action FROM moves WHERE table_id = ? ORDER BY ply", (table_id,))]
        return row

    def unfinished_table_ids(self) -> list[int]:
        marks = ",".join("?" * len(UNFINISHED))
        return [r["id"] for r in self.db.rows(
            f"SELECT id FROM game_tables WHERE status IN ({marks}) ORDER BY id", UNFINISHED)]

    def dump(self) -> dict[str, list[dict]]:
        """Every row of every table, in key order: what a test compares before and after."""
        order = {"users": "id", "sessions": "token_hash", "game_tables": "id",
                 "seats": "table_id, seat", "moves": "table_id, ply", "guests": "user_id",
                 "invites": "token_hash", "chat": "id",
                 "arena_bots": "id", "arena_deals": "id", "arena_games": "deal_id, rotation"}
        return {name: self.db.rows(f"SELECT * FROM {name} ORDER BY {key}")
                for name, key in order.items()}

    def close(self) -> None:
        self.db.close()
