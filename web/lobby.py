"""The community side of the server: making tables, quick match, scheduled games.

* quick match: first come, first served - a player joins the oldest
  table waiting for the chosen game and preset; the table's empty seats can be
  filled with bots after a wait the player picks;
* scheduled games: a host names a start time and the players; the
  game starts once every invited player has arrived (opened the table) and the
  time has come; at the end of the window (10 minutes from the start time)
  absentees are replaced by bots or the game is cancelled, as the host chose;
* custom tables: any mix of people, open seats and bots;
* play again: a finished table's players get a new table with the same seats;
* invite links: a seated player of a table waiting for players gets a link with a
  secret token (only its hash is stored); whoever opens it - an account or a
  guest - takes an open seat, while the table waits for players;
* table chat: short lines (``cardrl.web.protocol.CHAT_MAX`` characters, ``CHAT_RATE`` per
  ``CHAT_WINDOW`` seconds a player), from the players seated at the table,
  stored so a reload shows them; the page shows them as text, never as HTML.

Every request is checked whole before anything is written, so a refused one
changes nothing, in memory or in the database. Bots are picked by name from
the operator's list (``cardrl.web.bots.Bots``), never by a path.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import re
import secrets
from collections import deque
from typing import Any

from cardrl.envs.games import game_names, get_game
from cardrl.envs.rules_base import editable_fields
from cardrl.web.bots import BotError
from cardrl.web.db import Store
from cardrl.web.hub import MAX_ID, Conn, Hub
from cardrl.web.table import NotFoundError, RefusedError, Table

log = logging.getLogger("web")
WINDOW = 600.0  # seconds after the start time during which invited players may arrive
MAX_WAIT = 3600.0
MAX_NAME = 80  # longest game, preset or seat word echoed back in an error
MAX_INVITES = 20  # invite links one table may have
INVITE_RE = re.compile(r"^[A-Za-z0-9_-]{32}$")  # secrets.token_urlsafe(24)
CHAT_RATE, CHAT_WINDOW = 5, 10.0  # chat lines a player may send per window (seconds)
CHAT_HISTORY = 50  # chat lines a player opening the table gets


def _show(value: Any) -> str:
    """A value from a request, for an error message: repr, cut short."""
    text = repr(value)
    return text if len(text) <= MAX_NAME else text[:MAX_NAME - 3] + "..."


def _digest(token: str) -> str:
    """What is stored of a secret token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def player_counts(game: Any, preset: str) -> list[int]:
    """The player counts a table of ``preset`` may choose: those its editable ``num_players``
    allows and the preset's rules accept (just the preset's own without such a field)."""
    rules = game.get_rules(preset)
    field = editable_fields(rules).get("num_players")
    if field is None:
        return [game.num_players(rules)]
    counts = []
    for n in range(field.low, field.high + 1):
        try:
            game.get_rules(preset, num_players=n)
        except ValueError:
            continue
        counts.append(n)
    return counts


class Lobby(Hub):
    """A ``Hub`` that also matches players to tables and runs the schedule."""

    def __init__(self, store, *, window: float = WINDOW, **kwargs) -> None:
        super().__init__(store, **kwargs)
        self.window = window
        self.chat_times: dict[int, deque[float]] = {}  # user id -> times of recent lines
        self.making_again: dict[int, asyncio.Future] = {}  # old table -> its new one, stored

    # ------------------------------------------------------------ listings
    def games(self) -> list[dict]:
        """The games this server can host now, each preset with its seats and bots."""
        out = []
        for name in game_names():
            try:
                game = get_game(name)
            except (ImportError, ValueError):
                continue
            presets = []
            for preset in game.presets:
                rules = game.get_rules(preset)
                offered = self.bots.offered(name, rules)
                presets.append({"name": preset, "players": game.num_players(rules),
                                "player_counts": player_counts(game, preset),
                                "bots": offered, "default_bot": self.bots.default(name, rules)})
            bots = {s: self.bots.describe(s) for s in self.bots.specs(name)}
            out.append({"game": name, "presets": presets, "bots": bots,
                        "rule_fields": sorted(editable_fields(game.get_rules(game.presets[0])))})
        return out

    def bots_for(self, game: Any, preset: Any, rules: Any) -> dict:
        """The bots that can play a game under the given preset and rule changes."""
        g, preset, rules, n = self._game(game, preset, rules)
        full = g.get_rules(preset, **rules)
        return {"players": n, "bots": self.bots.offered(game, full),
                "default_bot": self.bots.default(game, full)}

    def listing(self, user_id: int, live: list | None = None) -> dict:
        """Your unfinished tables, and the live ones: a seated person is at the table
        (``live``: ``live_soon``'s, else read here)."""
        mine, open_, playing = [], [], []
        for table, online in live if live is not None else self._live():
            line = table.summary(online)
            live = any(table.seats[i].user_id in online for i in table.people())
            if table.seat_of(user_id) is not None:
                if table.status in ("waiting", "scheduled", "playing"):
                    mine.append(line)
            elif table.status == "waiting" and table.open_seats() and live:
                open_.append(line)
            elif table.status == "playing" and live:
                playing.append(line)
        return {"mine": mine, "open": open_, "playing": playing[-30:][::-1]}

    async def live_soon(self) -> list[tuple[Table, set[int]]] | None:
        """``_live`` read in a database lane (many servers), or None: read it where used."""
        if self.lanes is None:
            return None
        return await self.lanes.run("read", self._live)

    def _live(self, store: Store | None = None) -> list[tuple[Table, set[int]]]:
        """The tables a listing looks at, oldest first, with who is at each: the ones in
        memory, or with many servers every unfinished one in the database (its seats only;
        ``store``: a lane's, from its thread)."""
        if not self.shared:
            return [(t, self.online(t)) for t in sorted(self.tables.values(),
                                                        key=lambda t: (t.created, t.id))]
        store = store or self.store
        rows = store.unfinished_tables()
        present, away = store.present(), store.stand_ins()
        names = store.user_names([*(s["user_id"] for r in rows for s in r["seats"]
                                    if s["user_id"]), *(r["host"] for r in rows if r["host"])])
        out = []
        for row in sorted(rows, key=lambda r: (r["created"], r["id"])):
            try:
                table = Table(row, names, self.bots, deal=False)
            except ValueError as err:  # a game or rules this server does not know
                log.error("table %d not listed: %s", row["id"], err)
                continue
            for seat in away.get(row["id"], ()):
                table.seats[seat].away = True
            out.append((table, present.get(row["id"], set())))
        return out

    def invitations(self, user_id: int, live: list | None = None) -> list[dict]:
        """The scheduled games ``user_id`` is invited to, soonest first, with the host's
        name: what the lobby shows at sign-in ("your game starts in N minutes")."""
        out = []
        for table, _ in live if live is not None else self._live():  # every server's tables
            seat = table.seat_of(user_id)
            if table.status != "scheduled" or seat is None:
                continue
            host = next((s.user_name for s in table.seats if s.user_id == table.host),
                        table.host_name)
            out.append({"table": table.id, "game": table.game_name, "preset": table.preset,
                        "rules": table.rule_changes, "starts_at": table.starts_at,
                        "host": host, "mine": table.host == user_id,
                        "arrived": table.seats[seat].arrived is not None})
        return sorted(out, key=lambda x: (x["starts_at"], x["table"]))

    # -------------------------------------------------------------- checks
    def _game(self, game: Any, preset: Any, rules: Any):
        """(game, preset, rule changes, seats), checked; RefusedError naming what is wrong."""
        if not isinstance(game, str):
            raise RefusedError(f"game must be a game's name, got {_show(game)}")
        try:
            g = get_game(game)
        except ValueError:
            raise RefusedError(f"unknown game {_show(game)}; choose from "
                               f"{', '.join(game_names())}") from None
        except ImportError:
            raise RefusedError(f"game {game!r} is not available on this server yet") from None
        if preset is None:
            preset = g.presets[0]
        if not isinstance(preset, str) or preset not in g.presets:
            raise RefusedError(f"unknown {game} preset {_show(preset)}; "
                               f"choose from {', '.join(g.presets)}")
        rules = {} if rules is None else rules
        if not isinstance(rules, dict):
            raise RefusedError(f"rules must be an object of field: value changes, "
                               f"got {_show(rules)}")
        # the fields the game's rules declare editable and their values (``envs.rules_base``)
        fields = editable_fields(g.get_rules(preset))
        for key, value in rules.items():
            limits = fields.get(key)
            if limits is None:
                raise RefusedError(f"bad rules for {game}: rule {_show(key)} cannot be changed "
                                   f"at a web table; these can: {', '.join(fields)}")
            if not limits.allows(value):
                raise RefusedError(f"bad rules for {game}: {key} must be {limits.text}, "
                                   f"got {_show(value)}")
        try:
            num_players = g.num_players(g.get_rules(preset, **rules))
        except (ValueError, TypeError) as err:
            raise RefusedError(f"bad rules for {game}: {err}") from None
        return g, preset, rules, num_players

    def _bot(self, spec: Any, game: str, preset: str, rules: dict) -> str:
        try:
            return self.bots.check(spec, game, get_game(game).get_rules(preset, **rules))
        except BotError as err:
            raise RefusedError(str(err)) from None

    def _default_bot(self, game: str, preset: str, rules: dict) -> str:
        spec = self.bots.default(game, get_game(game).get_rules(preset, **rules))
        if spec is None:
            raise RefusedError(f"no bot on this server can play these {game} rules")
        return spec

    def _create(self, *, host: int, game: str, preset: str, rules: dict, kind: str,
                status: str, seats: list[tuple[int | None, str | None]], bot_spec: str | None,
                starts_at: float | None = None, absent: str | None = None,
                fill_at: float | None = None) -> Table:
        table_id = self.store.create_table(
            game=game, preset=preset, rules=rules, seed=secrets.randbits(62), kind=kind,
            status=status, host=host, created=self.clock(), starts_at=starts_at, absent=absent,
            bot_spec=bot_spec, fill_at=fill_at, seats=seats)
        table = self.table(table_id)
        if status == "waiting" and not table.open_seats():
            self.start(table)
        return table

    async def _create_soon(self, **fields) -> Table:
        """``_create`` with its database work in a lane: the row written, read back and its
        lease taken there; the table built on the event loop."""
        seed, now = secrets.randbits(62), self.clock()
        fields = {"starts_at": None, "absent": None, "fill_at": None, **fields}

        def make(store: Store) -> tuple:
            table_id = store.create_table(seed=seed, created=now, **fields)
            read = self._read_load(store, table_id)
            # this server's clock may have taken the new table's lease a moment ago
            taken = bool(store.take_leases(self.server_id, self.lease, table_id)) \
                or store.lease_owner(table_id) == self.server_id
            return table_id, read, taken

        # a new table: no work of its own to keep in order yet
        table_id, read, taken = await self.lanes.run("accounts", make)
        table = self.tables.get(table_id) or self._load(table_id, read)
        if taken:
            self._own(table)
        if table.status == "waiting" and not table.open_seats():
            self.start(table)
        return table

    async def table_soon(self, table_id: Any) -> Table:
        """``table``, loaded in the table's database lane when the server has them."""
        if self.lanes is None or table_id in self.tables:
            return self.table(table_id)
        if isinstance(table_id, bool) or not isinstance(table_id, int) \
                or not 0 < table_id <= MAX_ID:
            raise NotFoundError(f"no table {_show(table_id)}")
        loaded = asyncio.get_running_loop().create_future()
        self._load_soon(table_id, lambda: loaded.done() or loaded.set_result(None))
        await loaded
        if table_id not in self.tables:
            raise NotFoundError(f"no table {table_id}")
        return self.tables[table_id]

    async def _synced_soon(self, table_id: Any) -> Table:
        """The table with its row (the seats taken through other servers) read in its lane."""
        table = await self.table_soon(table_id)
        read = await self.lanes.run(table.id, self._read_row, table.id)
        self._sync(table, full=True, read=read)
        return table

    async def sit_soon(self, user_id: int, table_id: Any, seat: Any = None) -> Table:
        """``sit``, its database work in the table's lane when the server has them."""
        if self.lanes is None:
            return self.sit(user_id, table_id, seat)
        table = await self._synced_soon(table_id)
        seat = self._open_seat(table, user_id, seat)

        def take(store: Store) -> tuple:
            name = store.user_names([user_id])[user_id]
            taken = store.take_seat(table.id, seat, user_id)
            return name, taken, self._read_row(store, table.id)

        name, taken, read = await self.lanes.run(table.id, take)
        self._sync(table, full=True, read=read)  # the seats as stored, others' too
        if not taken:
            raise RefusedError(f"seat {seat} at table {table.id} was just taken")
        table.seats[seat].user_name = name
        if table.status == "waiting" and not table.open_seats():
            self.start(table)
        else:
            self.broadcast(table)
        return table

    async def stand_soon(self, user_id: int, table_id: Any) -> Table:
        """``stand``, its database work in the table's lane when the server has them."""
        if self.lanes is None:
            return self.stand(user_id, table_id)
        return self._stand(await self._synced_soon(table_id), user_id)

    async def invite_soon(self, user_id: int, table_id: Any) -> str:
        """``invite``, its database work in the table's lane when the server has them."""
        if self.lanes is None:
            return self.invite(user_id, table_id)
        table = self._invitable(await self.table_soon(table_id), user_id)
        token = secrets.token_urlsafe(24)
        now = self.clock()

        def add(store: Store) -> bool:
            if store.invite_count(table.id) >= MAX_INVITES:
                return False
            store.add_invite(_digest(token), table.id, user_id, now)
            return True

        if not await self.lanes.run(table.id, add):
            raise RefusedError(f"table {table.id} has {MAX_INVITES} invite links already: "
                               "send one of those")
        return token

    # -------------------------------------------------------------- tables
    async def create_table_soon(self, user_id: int, game: Any, preset: Any = None,
                                rules: Any = None, seats: Any = None) -> Table:
        """``create_table``, its database work in a lane when the server has them."""
        fields = self._custom(user_id, game, preset, rules, seats)
        if self.lanes is None:
            return self._create(**fields)
        return await self._create_soon(**fields)

    def create_table(self, user_id: int, game: Any, preset: Any = None, rules: Any = None,
                     seats: Any = None) -> Table:
        """A table with seats given as "me", "open" or "bot:<name>" (default: me, rest open)."""
        return self._create(**self._custom(user_id, game, preset, rules, seats))

    def _custom(self, user_id: int, game: Any, preset: Any, rules: Any, seats: Any) -> dict:
        """``create_table``'s request checked: what ``_create`` is given."""
        g, preset, rules, n = self._game(game, preset, rules)
        seats = ["me"] + ["open"] * (n - 1) if seats is None else seats
        if not isinstance(seats, list) or len(seats) != n:
            raise RefusedError(f"a {game} table with these rules has {n} seats; "
                               f"got {_show(seats)}")
        if seats.count("me") != 1:
            raise RefusedError(f"name your own seat \"me\" exactly once, got {_show(seats)}")
        spec_seats: list[tuple[int | None, str | None]] = []
        for s in seats:
            if s == "me":
                spec_seats.append((user_id, None))
            elif s == "open":
                spec_seats.append((None, None))
            elif isinstance(s, str) and s.startswith("bot:"):
                spec_seats.append((None, self._bot(s.removeprefix("bot:"), game, preset, rules)))
            else:
                raise RefusedError(f"a seat is \"me\", \"open\" or \"bot:<name>\", "
                                   f"got {_show(s)}")
        return dict(host=user_id, game=game, preset=preset, rules=rules, kind="custom",
                    status="waiting", seats=spec_seats, bot_spec=None)

    def sit(self, user_id: int, table_id: int, seat: Any = None) -> Table:
        """Take an open seat (the first one if none is named) at a waiting table."""
        table = self.table(table_id)
        if self.shared:  # the seats taken through other servers
            self._sync(table, full=True)
        seat = self._open_seat(table, user_id, seat)
        self._seat_user(table, seat, user_id)
        if not table.open_seats():
            self.start(table)
        else:
            self.broadcast(table)
        return table

    @staticmethod
    def _open_seat(table: Table, user_id: int, seat: Any) -> int:
        """The seat ``user_id`` asks for (None: the first open one), checked."""
        table_id = table.id
        if table.status != "waiting":
            raise RefusedError(f"table {table_id} is not taking players (status {table.status})")
        if table.seat_of(user_id) is not None:
            raise RefusedError(f"you already sit at table {table_id}")
        open_ = table.open_seats()
        if seat is None:
            if not open_:
                raise RefusedError(f"table {table_id} is full")
            seat = open_[0]
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in open_:
            raise RefusedError(f"seat {_show(seat)} at table {table_id} is not open; "
                               f"open seats: {open_}")
        return seat

    def _seat_user(self, table: Table, seat: int, user_id: int) -> None:
        name = self.store.user_names([user_id])[user_id]
        if not self.store.take_seat(table.id, seat, user_id):  # another server was quicker
            if self.shared:
                self._sync(table, full=True)
            raise RefusedError(f"seat {seat} at table {table.id} was just taken")
        s = table.seats[seat]
        s.user_id, s.user_name = user_id, name
        if self.shared:  # the seats others took meanwhile, so that whoever fills it starts it
            self._sync(table, full=True)

    def stand(self, user_id: int, table_id: int) -> Table:
        """Leave a table that has not started; with nobody left it is cancelled."""
        table = self.table(table_id)
        if self.shared:
            self._sync(table, full=True)
        return self._stand(table, user_id)

    def _stand(self, table: Table, user_id: int) -> Table:
        seat = table.seat_of(user_id)
        if seat is None:
            raise RefusedError(f"you have no seat at table {table.id}")
        if table.status != "waiting":
            raise RefusedError(f"table {table.id} has started; your seat stays yours")
        self._write(table.id, Store.set_seat, table.id, seat, None, None)
        table.seats[seat].user_id = table.seats[seat].user_name = None
        if all(s.user_id is None for s in table.seats):
            self.close_table(table, "cancelled", "everyone left")
        else:
            self.broadcast(table)
        return table

    def _fill_with_bots(self, table: Table, seats: list[int]) -> bool:
        """Seat the table's bot in ``seats``; False (nothing changed) if no bot can play."""
        spec = table.standin()
        if spec is None:
            return False
        def fill(store: Store) -> None:
            with store.transaction():
                for i in seats:
                    store.set_seat(table.id, i, None, spec)

        self._write(table.id, fill)  # in the table's lane (many servers), before its start
        for i in seats:
            table.seats[i].user_id = table.seats[i].user_name = None
            table.seats[i].bot_spec = spec
        return True

    def again(self, user_id: int, table_id: int) -> Table:
        """A new table with the same game, rules and seats as a finished one.

        The people of the old table are invited as to a game scheduled for now:
        it starts when all have opened it; bots take the seats of those who have
        not come in the window. Asked twice, it is the same new table.
        """
        old = self.table(table_id)
        fields = self._again_fields(old, user_id)
        if isinstance(fields, int):
            return self.table(fields)
        table_id, old.result = self._store_again(self.store, old, fields)
        self.broadcast(old)
        return self.table(table_id)

    async def again_soon(self, user_id: int, table_id: Any) -> Table:
        """``again``, its database work in the old table's lane when the server has them;
        asked again meanwhile (the other players click too), the same new table."""
        if self.lanes is None:
            return self.again(user_id, table_id)
        old = await self.table_soon(table_id)
        fields = self._again_fields(old, user_id)
        if isinstance(fields, int):
            return await self.table_soon(fields)
        making = self.making_again.get(old.id)
        if making is None:
            making = self.making_again[old.id] = self.lanes.run(old.id, self._store_again, old,
                                                                fields)

            def made(f: asyncio.Future) -> None:
                self.making_again.pop(old.id, None)
                if not f.cancelled() and f.exception() is None:
                    old.result = f.result()[1]
                    self.broadcast(old)

            making.add_done_callback(made)
        table_id, _ = await asyncio.shield(making)  # a request gone does not stop it
        return await self.table_soon(table_id)

    def _again_fields(self, old: Table, user_id: int) -> dict | int:
        """``again``'s request checked: the new table's fields, or the id of the one made."""
        if old.seat_of(user_id) is None:
            raise RefusedError(f"you have no seat at table {old.id}")
        if old.status != "finished":
            raise RefusedError(f"table {old.id} is not over (status {old.status})")
        if old.result and old.result.get("again"):
            return old.result["again"]
        seats = [(s.user_id, s.bot_spec) for s in old.seats]
        for _, spec in seats:
            if spec is not None:
                self._bot(spec, old.game_name, old.preset, old.rule_changes)
        bot = old.standin() or self._default_bot(old.game_name, old.preset, old.rule_changes)
        return dict(game=old.game_name, preset=old.preset, rules=old.rule_changes,
                    seed=secrets.randbits(62), kind="scheduled", status="scheduled",
                    host=user_id, created=self.clock(), starts_at=self.clock(), absent="bot",
                    bot_spec=bot, fill_at=None, seats=seats)

    @staticmethod
    def _store_again(store: Store, old: Table, fields: dict) -> tuple[int, dict]:
        """The new table and the old one's pointer to it, in one transaction (any thread)."""
        with store.transaction():
            table_id = store.create_table(**fields)
            result = {**(old.result or {}), "again": table_id}
            store.set_status(old.id, old.status, result)
        return table_id, result

    # ---------------------------------------------------------- quick match
    def _quick(self, game: Any, preset: Any, fill_after: Any, bot: Any) -> tuple:
        """``quick_match``'s request checked: game, preset, rules, seats, bot, fill time."""
        g, preset, rules, n = self._game(game, preset, None)
        if fill_after is not None and (isinstance(fill_after, bool) or not isinstance(
                fill_after, (int, float)) or math.isnan(fill_after)
                or not 0 <= fill_after <= MAX_WAIT):
            raise RefusedError(f"fill_after is a number of seconds 0..{MAX_WAIT:g} or null, "
                               f"got {_show(fill_after)}")
        bot = self._bot(bot, game, preset, rules) if bot is not None \
            else self._default_bot(game, preset, rules)
        fill_at = None if fill_after is None else self.clock() + fill_after
        return game, preset, rules, n, bot, fill_at

    async def quick_match_soon(self, user_id: int, game: Any, preset: Any = None,
                               fill_after: Any = None, bot: Any = None) -> Table:
        """``quick_match``, its database work in lanes when the server has them."""
        if self.lanes is None:
            return self.quick_match(user_id, game, preset, fill_after, bot)
        game, preset, rules, n, bot, fill_at = self._quick(game, preset, fill_after, bot)
        ids = await self.lanes.run("read", Store.waiting_table_ids, "quick", game, preset)
        found = []
        for table_id in ids:
            try:
                found.append(await self.table_soon(table_id))
            except NotFoundError:
                continue
        mine, waiting = self._waiting(found, user_id)
        if mine is not None:
            return mine
        for table in waiting:
            if table.status == "waiting" and table.open_seats():
                self._fill_sooner(table, fill_at)
                try:
                    await self.sit_soon(user_id, table.id)
                except RefusedError:
                    continue  # the seat went to someone at another server meanwhile
                self.tick()
                return table
        table = await self._create_soon(
            host=user_id, game=game, preset=preset, rules=rules, kind="quick",
            status="waiting", seats=[(user_id, None)] + [(None, None)] * (n - 1),
            bot_spec=bot, fill_at=fill_at)
        self.tick()
        return table

    @staticmethod
    def _waiting(found, user_id: int) -> tuple[Table | None, list[Table]]:
        """Quick match's tables still waiting, oldest first, and the one ``user_id`` already
        waits at (or None)."""
        waiting = sorted((t for t in found if t.status == "waiting"),
                         key=lambda t: (t.created, t.id))
        return next((t for t in waiting if t.seat_of(user_id) is not None), None), waiting

    def _fill_sooner(self, table: Table, fill_at: float | None) -> None:
        """A player who joins a waiting table may bring its bots' time forward."""
        if fill_at is not None and (table.fill_at is None or fill_at < table.fill_at):
            self._write(table.id, Store.set_fill_at, table.id, fill_at)
            table.fill_at = fill_at

    def quick_match(self, user_id: int, game: Any, preset: Any = None,
                    fill_after: Any = None, bot: Any = None) -> Table:
        """Seat the player at the oldest table waiting for this game, or open a new one.

        ``fill_after``: seconds after which the empty seats get bots (None: wait for people).
        """
        game, preset, rules, n, bot, fill_at = self._quick(game, preset, fill_after, bot)
        if self.shared:  # every server's tables
            found = (self.table(i) for i in self.store.waiting_table_ids("quick", game, preset))
        else:
            found = (t for t in self.tables.values() if t.kind == "quick"
                     and t.game_name == game and t.preset == preset)
        mine, waiting = self._waiting(found, user_id)
        if mine is not None:
            return mine
        for table in waiting:
            if table.open_seats():
                self._fill_sooner(table, fill_at)
                try:
                    self.sit(user_id, table.id)
                except RefusedError:
                    continue  # the seat went to someone at another server meanwhile
                self.tick()
                return table
        table = self._create(host=user_id, game=game, preset=preset, rules=rules, kind="quick",
                             status="waiting", seats=[(user_id, None)] + [(None, None)] * (n - 1),
                             bot_spec=bot, fill_at=fill_at)
        self.tick()
        return table

    # ------------------------------------------------------------ schedule
    def _scheduled(self, user_id: int, game: Any, starts_at: Any, players: Any, preset: Any,
                   rules: Any, absent: Any, bot: Any) -> dict:
        """``schedule``'s request checked: ``_create``'s fields, the seats still as
        (players, their bots) until the accounts are read."""
        g, preset, rules, n = self._game(game, preset, rules)
        now = self.clock()
        if isinstance(starts_at, bool) or not isinstance(starts_at, (int, float)) \
                or math.isnan(starts_at) or not now - self.window < starts_at < now + 366 * 86400:
            raise RefusedError(f"starts_at must be a time (epoch seconds) from now to a year "
                               f"ahead, got {_show(starts_at)}")
        if absent not in ("bot", "cancel"):
            raise RefusedError(f"absent must be 'bot' or 'cancel', got {_show(absent)}")
        if not isinstance(players, list) or len(players) != n:
            raise RefusedError(f"a {game} game with these rules needs {n} players, "
                               f"got {_show(players)}")
        bot = self._bot(bot, game, preset, rules) if bot is not None \
            else self._default_bot(game, preset, rules)
        bots = [self._bot(p.removeprefix("bot:"), game, preset, rules)
                if isinstance(p, str) and p.startswith("bot:") else None for p in players]
        return dict(host=user_id, game=game, preset=preset, rules=rules, kind="scheduled",
                    status="scheduled", seats=(players, bots), bot_spec=bot,
                    starts_at=float(starts_at), absent=absent)

    @staticmethod
    def _invitees(store: Store, players: list, bots: list) -> list[tuple[int | None, str | None]]:
        """A scheduled game's seats: each player's account (any thread), or its bot."""
        seats: list[tuple[int | None, str | None]] = []
        for p, spec in zip(players, bots, strict=True):
            if spec is not None:
                seats.append((None, spec))
                continue
            user = store.user_by_name(p) if isinstance(p, str) and len(p) <= 24 else None
            if user is None:
                raise RefusedError(f"no user named {_show(p)}")
            if store.is_guest(user["id"]):
                raise RefusedError(f"{user['name']} is a guest: only accounts can be invited "
                                   f"by name (send a table's invite link instead)")
            if any(u == user["id"] for u, _ in seats):
                raise RefusedError(f"{user['name']} is invited twice")
            seats.append((user["id"], None))
        if all(u is None for u, _ in seats):
            raise RefusedError("invite at least one person")
        return seats

    def schedule(self, user_id: int, game: Any, starts_at: Any, players: Any,
                 preset: Any = None, rules: Any = None, absent: Any = "bot",
                 bot: Any = None) -> Table:
        """A game at ``starts_at`` (epoch seconds) for ``players``: user names or "bot:<name>"."""
        fields = self._scheduled(user_id, game, starts_at, players, preset, rules, absent, bot)
        fields["seats"] = self._invitees(self.store, *fields["seats"])
        return self._create(**fields)

    async def schedule_soon(self, user_id: int, game: Any, starts_at: Any, players: Any,
                            preset: Any = None, rules: Any = None, absent: Any = "bot",
                            bot: Any = None) -> Table:
        """``schedule``, its database work in lanes when the server has them."""
        if self.lanes is None:
            return self.schedule(user_id, game, starts_at, players, preset, rules, absent, bot)
        fields = self._scheduled(user_id, game, starts_at, players, preset, rules, absent, bot)
        fields["seats"] = await self.lanes.run("accounts", self._invitees, *fields["seats"])
        return await self._create_soon(**fields)

    def join(self, conn: Conn, table: Table) -> None:
        """Opening a scheduled table before its window closes is arriving for it."""
        seat = table.seat_of(conn.user_id)
        now = self.clock()
        if table.status == "scheduled" and seat is not None \
                and table.seats[seat].arrived is None and now < table.starts_at + self.window:
            self._write(table.id, Store.set_seat, table.id, seat, conn.user_id, None, now)
            table.seats[seat].arrived = now
            if not self.runs(table):
                self._note("r", table.id)  # the table's server starts the game
        super().join(conn, table)

        def history(lines: list[dict]) -> None:
            if lines:
                conn.send({"type": "chat", "table": table.id, "history": True,
                           "lines": [self._chat_line(table, r) for r in lines]})

        if self.lanes is None:
            history(self.store.chat(table.id, CHAT_HISTORY))
        else:  # read off the event loop; the table's messages go first meanwhile
            self.lanes.run("read", Store.chat, table.id, CHAT_HISTORY).add_done_callback(
                lambda f: f.exception() is None and history(f.result()))
        if table.status == "scheduled" and self.runs(table):
            self._check_schedule(table, now)

    # ------------------------------------------------------- guests, links
    def adopt_guest(self, user_id: int, name: str, password_hash: str) -> bool:
        """The guest becomes the account ``name``: same id, so the same seats and results;
        the tables in memory show the new name. False (nothing changed) if it is taken."""
        if not self.store.adopt_guest(user_id, name, password_hash):
            return False
        self.adopted(user_id, name)
        return True

    def adopted(self, user_id: int, name: str) -> None:
        """The guest ``user_id`` became the account ``name`` (stored): the tables in memory
        and the connections show the new name."""
        for table in self.tables.values():
            if table.host == user_id:
                table.host_name = name
            seat = table.seat_of(user_id)
            if seat is not None:
                table.seats[seat].user_name = name
                self.broadcast(table)
        for conn in self.conns:
            if conn.user_id == user_id:
                conn.user_name = name

    def invite(self, user_id: int, table_id: int) -> str:
        """A new invite link's secret token for a table waiting for players."""
        table = self._invitable(self.table(table_id), user_id)
        if self.store.invite_count(table.id) >= MAX_INVITES:
            raise RefusedError(f"table {table_id} has {MAX_INVITES} invite links already: "
                               "send one of those")
        token = secrets.token_urlsafe(24)
        self.store.add_invite(_digest(token), table.id, user_id, self.clock())
        return token

    @staticmethod
    def _invitable(table: Table, user_id: int) -> Table:
        if table.seat_of(user_id) is None:
            raise RefusedError(f"you have no seat at table {table.id}")
        if table.status != "waiting" or not table.open_seats():
            raise RefusedError(f"table {table.id} has no open seat to invite anyone to")
        return table

    def check_invite(self, token: Any, user_id: int | None = None) -> Table:
        """The table an invite link seats ``user_id`` at (None: a newcomer, checked before
        any guest account is made for them); RefusedError when the link is over."""
        if not isinstance(token, str) or not INVITE_RE.match(token):
            raise RefusedError(f"{_show(token)} is not an invitation: open the whole link")
        row = self.store.invite(_digest(token))
        if row is None:
            raise NotFoundError("no such invitation: open the whole link")
        table = self.table(row["table_id"])
        if self.shared:  # the seats taken through other servers
            self._sync(table, full=True)
        return self._invite_open(table, user_id)

    @staticmethod
    def _invite_open(table: Table, user_id: int | None) -> Table:
        if user_id is not None and table.seat_of(user_id) is not None:
            return table
        if table.status != "waiting":
            raise RefusedError(f"the invitation to table {table.id} is over: the table is "
                               f"{table.status}")
        if not table.open_seats():
            raise RefusedError(f"the invitation to table {table.id} is over: the table is full")
        return table

    async def check_invite_soon(self, token: Any, user_id: int | None = None) -> Table:
        """``check_invite``, read in database lanes when the server has them."""
        if self.lanes is None:
            return self.check_invite(token, user_id)
        if not isinstance(token, str) or not INVITE_RE.match(token):
            raise RefusedError(f"{_show(token)} is not an invitation: open the whole link")
        row = await self.lanes.run("read", Store.invite, _digest(token))
        if row is None:
            raise NotFoundError("no such invitation: open the whole link")
        return self._invite_open(await self._synced_soon(row["table_id"]), user_id)

    async def accept_invite_soon(self, user_id: int, token: Any) -> Table:
        """``accept_invite``, its database work in lanes when the server has them."""
        if self.lanes is None:
            return self.accept_invite(user_id, token)
        table = await self.check_invite_soon(token, user_id)
        if table.seat_of(user_id) is not None:
            return table
        return await self.sit_soon(user_id, table.id)

    def accept_invite(self, user_id: int, token: Any) -> Table:
        """Seat whoever opens an invite link at its table (again: the same seat)."""
        table = self.check_invite(token, user_id)
        if table.seat_of(user_id) is not None:
            return table
        return self.sit(user_id, table.id)

    # ---------------------------------------------------------------- chat
    def chat(self, conn: Conn, table: Table, text: str) -> None:
        """One chat line from a seated player: stored, then sent to everyone at the table."""
        seat = table.seat_of(conn.user_id)
        if seat is None:
            raise RefusedError(f"only the players of table {table.id} can chat there")
        now = self.clock()
        times = self.chat_times.setdefault(conn.user_id, deque())
        while times and times[0] <= now - CHAT_WINDOW:
            times.popleft()
        if len(times) >= CHAT_RATE:
            raise RefusedError(f"slow down: at most {CHAT_RATE} chat lines in "
                               f"{CHAT_WINDOW:g} seconds")
        times.append(now)
        self._write(table.id, Store.add_chat, table.id, conn.user_id, text, now)
        line = self._chat_line(table, {"user_id": conn.user_id, "name": conn.user_name,
                                       "text": text, "at": now})
        message = {"type": "chat", "table": table.id, "lines": [line]}
        for follower in list(table.subscribers):
            follower.send(message)
        if self.shared:  # the people at the table through other servers
            self._note("h", table.id, m=message)

    @staticmethod
    def _chat_line(table: Table, row: dict) -> dict:
        return {"seat": table.seat_of(row["user_id"]), "name": row["name"], "text": row["text"],
                "at": row["at"]}

    def _check_schedule(self, table: Table, now: float) -> None:
        people = [i for i, s in enumerate(table.seats) if s.user_id is not None]
        missing = [i for i in people if table.seats[i].arrived is None]
        if now >= table.starts_at and not missing:
            self.start(table)
        elif now >= table.starts_at + self.window:
            if table.absent == "bot" and len(missing) < len(people) \
                    and self._fill_with_bots(table, missing):
                self.start(table)
            else:
                names = ", ".join(table.seats[i].user_name for i in missing)
                self.close_table(table, "cancelled",
                                 f"not arrived within {self.window / 60:g} minutes: {names}")

    # --------------------------------------------------------------- clock
    def tick(self) -> None:
        """Fill quick-match tables whose wait is over; start or cancel scheduled games;
        run the turn clocks and close the tables nobody is at."""
        now = self.clock()
        for table in list(self.tables.values()):
            if not self.runs(table):
                continue
            if table.status == "waiting" and table.fill_at is not None and now >= table.fill_at:
                if self._fill_with_bots(table, table.open_seats()):
                    self.start(table)
            elif table.status == "scheduled":
                self._check_schedule(table, now)
        self.tick_tables(now)

    async def run_clock(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                if self.shared:
                    await self.keep_leases_soon()
                self.tick()
            except Exception:
                log.exception("lobby clock tick failed")
