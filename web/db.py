"""Storage of users, sessions, tables, seats and every move.

SQLite by default (``sqlite:///path.db``); a ``postgresql://`` URL uses
PostgreSQL through psycopg (the ``web`` extra installs it). The SQL is the
common subset of both, with ``?`` placeholders rewritten for psycopg and
``RETURNING id`` for new rows. Every write commits at once (a request's
writes together, in one transaction): a move is on disk before anyone hears
of it, so a restarted server replays every unfinished game exactly.

SQLite is one server's database: ``Store(..., exclusive=True)`` takes an
exclusive lock on ``<file>.lock`` for the store's lifetime and a second
server refuses to start (the lock goes with the process, also when killed).
PostgreSQL is shared by any number of servers: each table is run by one of
them at a time, the holder of its lease (the ``leases`` rows below, taken
with conditional statements and renewed by a heartbeat), and the servers tell
each other of changes with ``NOTIFY`` (``cardrl.web.cluster``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import sqlite3
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger("web")

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
CREATE TABLE IF NOT EXISTS user_prefs (
    user_id BIGINT PRIMARY KEY REFERENCES users(id),
    prefs TEXT NOT NULL
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
CREATE TABLE IF NOT EXISTS servers (
    id TEXT PRIMARY KEY,
    beat {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS server_urls (
    server TEXT PRIMARY KEY,
    url TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    table_id BIGINT PRIMARY KEY REFERENCES game_tables(id),
    owner TEXT NOT NULL,
    expires {real} NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_owner ON leases(owner);
CREATE TABLE IF NOT EXISTS commands (
    id {serial},
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    body TEXT NOT NULL,
    origin TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS commands_table ON commands(table_id);
CREATE TABLE IF NOT EXISTS presence (
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    server TEXT NOT NULL,
    PRIMARY KEY (table_id, user_id, server)
);
CREATE TABLE IF NOT EXISTS stand_ins (
    table_id BIGINT NOT NULL REFERENCES game_tables(id),
    seat INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);
"""

_DIALECTS = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL"},
    "postgresql": {"serial": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"},
}

UNFINISHED = ("waiting", "scheduled", "playing")
SCHEMA_LOCK = 0x636172646C776562  # servers starting together make the tables one at a time
CHANNEL = "cardrl_web"  # the NOTIFY channel of the servers sharing a PostgreSQL database
NOW = "EXTRACT(EPOCH FROM clock_timestamp())::float8"  # leases run on the database's clock
GUEST_PASSWORD = "guest"  # a guest's stored password: no scrypt hash, so nothing verifies


class DatabaseBusyError(RuntimeError):
    """Another server already uses this SQLite database."""


class Database:
    """One connection, used from one thread at a time (the event loop's, or a lane's:
    ``cardrl.web.cluster.Lanes``). ``delay``: seconds slept before each statement, to
    measure a slow database (``bench_web_load --db-delay``)."""

    def __init__(self, url: str, exclusive: bool = False, delay: float = 0.0) -> None:
        if not isinstance(url, str):
            raise ValueError(f"a database URL is a string, got {url!r}")
        self.delay = delay
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
        else:
            raise ValueError(f"unsupported database URL {_safe(url)}: use sqlite:///file.db "
                             "or postgresql://user:pass@host/db")
        self.url = url
        with self.transaction():
            if self.dialect == "postgresql":  # CREATE ... IF NOT EXISTS races between servers
                self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in _SCHEMA.format(**_DIALECTS[self.dialect]).split(";"):
                if statement.strip():
                    self.conn.execute(statement)

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

    def _run(self, sql: str, params: tuple):
        if self.delay:
            with contextlib.suppress(RuntimeError):  # RuntimeError: no loop in this thread
                asyncio.get_running_loop()
                _on_loop()
            time.sleep(self.delay)
        return self.conn.execute(sql if self.dialect == "sqlite" else sql.replace("?", "%s"),
                                 params)

    def execute(self, sql: str, params: tuple = ()) -> None:
        self._run(sql, params)

    def count(self, sql: str, params: tuple = ()) -> int:
        """Run a write; the number of rows it changed."""
        return self._run(sql, params).rowcount

    def rows(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self._run(sql, params).fetchall()]

    def row(self, sql: str, params: tuple = ()) -> dict[str, Any] | None:
        r = self._run(sql, params).fetchone()
        return None if r is None else dict(r)

    def insert(self, sql: str, params: tuple = ()) -> int:
        rows = self._run(sql + " RETURNING id", params).fetchall()
        return int(rows[0][0] if self.dialect == "sqlite" else rows[0]["id"])

    def close(self) -> None:
        self.conn.close()
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None


_SEEN: set[str] = set()


def _on_loop() -> None:
    """Measuring a slow database: say (once per place) where a statement ran on the event
    loop, where it stalls every socket of the server."""
    stack = [f for f in traceback.extract_stack() if not f.filename.endswith("db.py")]
    here = [f"{Path(f.filename).stem}.{f.name}:{f.lineno}"
            for f in [f for f in stack if "/web/" in f.filename] or stack[-2:]][-4:]
    key = " < ".join(reversed(here))
    if key not in _SEEN:
        _SEEN.add(key)
        log.warning("database statement on the event loop: %s", key)


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

    def __init__(self, url: str, exclusive: bool = False, delay: float = 0.0) -> None:
        self.db = Database(url, exclusive=exclusive, delay=delay)

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

    def prefs(self, user_id: int) -> dict:
        """The player's settings (``cardrl.web.routes.accounts.PREFS``); {} if none set."""
        row = self.db.row("SELECT prefs FROM user_prefs WHERE user_id = ?", (user_id,))
        return {} if row is None else json.loads(row["prefs"])

    def set_prefs(self, user_id: int, prefs: dict) -> None:
        self.db.execute("INSERT INTO user_prefs (user_id, prefs) VALUES (?, ?) ON CONFLICT "
                        "(user_id) DO UPDATE SET prefs = excluded.prefs",
                        (user_id, json.dumps(prefs)))

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

    def table(self, table_id: int, moves: bool = True) -> dict | None:
        """A table row with its ``seats`` and (unless ``moves`` is false) ``moves`` in ply
        order, or None."""
        row = self.db.row("SELECT * FROM game_tables WHERE id = ?", (table_id,))
        if row is None:
            return None
        row["rules"] = json.loads(row["rules"])
        row["result"] = json.loads(row["result"]) if row["result"] else None
        row["seats"] = self.db.rows("SELECT * FROM seats WHERE table_id = ? ORDER BY seat",
                                    (table_id,))
        if moves:
            row["moves"] = self.moves_since(table_id, 0)
        return row

    def moves_since(self, table_id: int, ply: int) -> list[tuple[int, int]]:
        """(seat, action) of the moves from ``ply`` on."""
        return [(r["seat"], r["action"]) for r in self.db.rows(
            "SELECT seat, action FROM moves WHERE table_id = ? AND ply >= ? ORDER BY ply",
            (table_id, ply))]

    def unfinished_tables(self) -> list[dict]:
        """Every unfinished table's row with its seats (no moves): what a lobby lists."""
        marks = ",".join("?" * len(UNFINISHED))
        rows = self.db.rows(f"SELECT * FROM game_tables WHERE status IN ({marks}) ORDER BY id",
                            UNFINISHED)
        seats: dict[int, list] = {r["id"]: [] for r in rows}
        for s in self.db.rows(
                f"SELECT seats.* FROM seats JOIN game_tables ON game_tables.id = seats.table_id"
                f" WHERE status IN ({marks}) ORDER BY table_id, seat", UNFINISHED):
            seats[s["table_id"]].append(s)
        for r in rows:
            r["rules"] = json.loads(r["rules"])
            r["result"] = json.loads(r["result"]) if r["result"] else None
            r["seats"] = seats[r["id"]]
        return rows

    def waiting_table_ids(self, kind: str, game: str, preset: str) -> list[int]:
        """Tables of ``kind`` waiting for players of ``game`` and ``preset``, oldest first."""
        return [r["id"] for r in self.db.rows(
            "SELECT id FROM game_tables WHERE status = 'waiting' AND kind = ? AND game = ? "
            "AND preset = ? ORDER BY created, id", (kind, game, preset))]

    def take_seat(self, table_id: int, seat: int, user_id: int) -> bool:
        """Seat a person in an open seat of a waiting table; False (nothing changed) if the
        seat or the table was taken meanwhile (by another server)."""
        return self.db.count(
            "UPDATE seats SET user_id = ?, bot = NULL, arrived = NULL WHERE table_id = ? "
            "AND seat = ? AND user_id IS NULL AND bot IS NULL AND EXISTS (SELECT 1 FROM "
            "game_tables WHERE id = ? AND status = 'waiting')",
            (user_id, table_id, seat, table_id)) == 1

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

    # ------------------------------------------- many servers (PostgreSQL)
    @property
    def shared(self) -> bool:
        """Whether several servers may use this database at once."""
        return self.db.dialect == "postgresql"

    def add_server(self, server: str) -> None:
        self.db.execute(f"INSERT INTO servers (id, beat) VALUES (?, {NOW})", (server,))

    def heartbeat(self, server: str, lease: float) -> set[int]:
        """Renew the server's heartbeat and its leases; the ids of the tables it still holds
        (one taken by another server while this one stalled is missing). A server another
        reaped while it stalled is alive again: ``Hub.keep_leases`` stores its presence anew."""
        with self.transaction():
            self.db.execute(f"INSERT INTO servers (id, beat) VALUES (?, {NOW}) "
                            f"ON CONFLICT (id) DO UPDATE SET beat = excluded.beat", (server,))
            return {r["table_id"] for r in self.db.rows(
                f"UPDATE leases SET expires = {NOW} + ? WHERE owner = ? RETURNING table_id",
                (lease, server))}

    def take_leases(self, server: str, lease: float, table_id: int | None = None) -> list[int]:
        """Take every unfinished table (or just ``table_id``) that has no lease or an expired
        one. Conditional statements: of servers trying at once, exactly one gets a table."""
        marks = ",".join("?" * len(UNFINISHED))
        only, extra = ("AND id = ?", (table_id,)) if table_id is not None else ("", ())
        new = self.db.rows(  # each statement is atomic: no transaction needed
            f"INSERT INTO leases (table_id, owner, expires) SELECT id, ?, {NOW} + ? "
            f"FROM game_tables WHERE status IN ({marks}) {only} AND NOT EXISTS (SELECT 1 "
            f"FROM leases WHERE leases.table_id = game_tables.id) "
            f"ON CONFLICT (table_id) DO NOTHING RETURNING table_id",
            (server, lease, *UNFINISHED, *extra))
        old = self.db.rows(
            f"UPDATE leases SET owner = ?, expires = {NOW} + ? WHERE expires < {NOW} "
            f"AND table_id IN (SELECT id FROM game_tables WHERE status IN ({marks}) "
            f"{only}) RETURNING table_id", (server, lease, *UNFINISHED, *extra))
        return sorted(r["table_id"] for r in new + old)

    def lease_owner(self, table_id: int) -> str | None:
        row = self.db.row("SELECT owner FROM leases WHERE table_id = ?", (table_id,))
        return None if row is None else row["owner"]

    def release_leases(self, server: str, table_id: int | None = None) -> None:
        if table_id is None:
            self.db.execute("DELETE FROM leases WHERE owner = ?", (server,))
        else:
            self.db.execute("DELETE FROM leases WHERE owner = ? AND table_id = ?",
                            (server, table_id))

    def add_leased_move(self, table_id: int, ply: int, seat: int, action: int, at: float,
                        server: str) -> bool:
        """Store a move only while ``server`` holds the table's lease and nobody stored that
        ply yet; False (nothing stored) otherwise."""
        return self.db.count(
            "INSERT INTO moves (table_id, ply, seat, action, at) SELECT ?, ?, ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM leases WHERE table_id = ? AND owner = ?) "
            "ON CONFLICT (table_id, ply) DO NOTHING",
            (table_id, ply, seat, action, at, table_id, server)) == 1

    def drop_server(self, server: str) -> list[int]:
        """A server stops: its leases, presence and heartbeat go; the tables it was at."""
        with self.transaction():
            self.release_leases(server)
            tables = self.db.rows("DELETE FROM presence WHERE server = ? RETURNING table_id",
                                  (server,))
            self.db.execute("DELETE FROM servers WHERE id = ?", (server,))
        return sorted({r["table_id"] for r in tables})

    def set_server_url(self, server: str, url: str) -> None:
        """The address a server's pages reach it at (``--public-url``), kept after it stops:
        the other servers accept sockets from pages it served."""
        with self.transaction():  # one row an address: the server that said it last
            self.db.execute("DELETE FROM server_urls WHERE url = ?", (url,))
            self.db.execute("INSERT INTO server_urls (server, url) VALUES (?, ?) ON CONFLICT "
                            "(server) DO UPDATE SET url = excluded.url", (server, url))

    def server_urls(self, silence: float) -> tuple[list[str], set[str]]:
        """The addresses of the servers heard from within ``silence`` seconds, and of every
        server that ever said one."""
        rows = self.db.rows(f"SELECT url, server IN (SELECT id FROM servers WHERE beat >= "
                            f"{NOW} - ?) AS live FROM server_urls ORDER BY url", (silence,))
        return sorted({r["url"] for r in rows if r["live"]}), {r["url"] for r in rows}

    def reap_servers(self, silence: float) -> list[int]:
        """Forget the presence at tables of servers silent for ``silence`` seconds (killed);
        the tables whose presence changed."""
        tables = self.db.rows(
            f"DELETE FROM presence WHERE server NOT IN (SELECT id FROM servers WHERE "
            f"beat >= {NOW} - ?) RETURNING table_id", (silence,))
        self.db.execute(f"DELETE FROM servers WHERE beat < {NOW} - ?", (silence,))
        return sorted({r["table_id"] for r in tables})

    def set_present(self, table_id: int, user_id: int, server: str, here: bool) -> None:
        """Whether the user follows the table through ``server``."""
        if here:
            self.db.execute("INSERT INTO presence (table_id, user_id, server) VALUES (?, ?, ?) "
                            "ON CONFLICT DO NOTHING", (table_id, user_id, server))
        else:
            self.db.execute("DELETE FROM presence WHERE table_id = ? AND user_id = ? AND "
                            "server = ?", (table_id, user_id, server))

    def present(self, table_id: int | None = None, besides: str | None = None,
                through: str | None = None) -> dict[int, set[int]]:
        """table id -> the users following it (through servers other than ``besides``; or,
        given ``through``, through that server alone)."""
        sql, params = ("SELECT table_id, user_id FROM presence WHERE server = ?", (through,)) \
            if through is not None else \
            ("SELECT table_id, user_id FROM presence WHERE server <> ?", (besides or "",))
        if table_id is not None:
            sql, params = sql + " AND table_id = ?", (*params, table_id)
        out: dict[int, set[int]] = {}
        for r in self.db.rows(sql, params):
            out.setdefault(r["table_id"], set()).add(r["user_id"])
        return out

    def set_stand_in(self, table_id: int, seat: int, on: bool) -> None:
        """Whether a bot plays the seat of a person whose clock ran out."""
        if on:
            self.db.execute("INSERT INTO stand_ins (table_id, seat) VALUES (?, ?) "
                            "ON CONFLICT DO NOTHING", (table_id, seat))
        else:
            self.db.execute("DELETE FROM stand_ins WHERE table_id = ? AND seat = ?",
                            (table_id, seat))

    def stand_ins(self, table_id: int | None = None) -> dict[int, set[int]]:
        """table id -> the seats a bot plays for their person."""
        sql, params = "SELECT table_id, seat FROM stand_ins", ()
        if table_id is not None:
            sql, params = sql + " WHERE table_id = ?", (table_id,)
        out: dict[int, set[int]] = {}
        for r in self.db.rows(sql, params):
            out.setdefault(r["table_id"], set()).add(r["seat"])
        return out

    def add_command(self, table_id: int, user_id: int, body: dict, origin: str,
                    note: str) -> None:
        """A move (or "I'm back") for the server that runs the table, and ``note`` to every
        server, in one statement."""
        self.db.execute(f"WITH c AS (INSERT INTO commands (table_id, user_id, body, origin) "
                        f"VALUES (?, ?, ?, ?) RETURNING id) SELECT pg_notify('{CHANNEL}', ?) "
                        f"FROM c", (table_id, user_id, json.dumps(body), origin, note))

    def take_commands(self, table_id: int) -> list[dict]:
        """The table's waiting commands, oldest first; each is handed out once."""
        rows = self.db.rows("DELETE FROM commands WHERE table_id = ? "
                            "RETURNING id, user_id, body, origin", (table_id,))
        for r in rows:
            r["body"] = json.loads(r["body"])
        return sorted(rows, key=lambda r: r["id"])

    def notify(self, payloads: list[str]) -> None:
        """Tell every server listening on the database, in one round trip (delivered in
        order, once committed)."""
        self.db.execute(f"SELECT pg_notify('{CHANNEL}', x) FROM unnest(?::text[]) AS x",
                        (payloads,))

    def leases_of(self, server: str) -> set[int]:
        return {r["table_id"] for r in self.db.rows(
            "SELECT table_id FROM leases WHERE owner = ?", (server,))}

    def close(self) -> None:
        self.db.close()
