"""The community side of the server: making tables, quick match, scheduled games.

* quick match (A1.1a.3): first come, first served - a player joins the oldest
  table waiting for the chosen game and preset; the table's empty seats can be
  filled with bots after a wait the player picks;
* scheduled games (A1.1a.2): a host names a start time and the players; the
  game starts once every invited player has arrived (opened the table) and the
  time has come; at the end of the window (10 minutes from the start time)
  absentees are replaced by bots or the game is cancelled, as the host chose;
* custom tables: any mix of people, open seats and bots (A1.3).
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets

from envs.games import game_names, get_game
from web.bots import bot_names, default_bot, make_bot
from web.hub import Conn, Hub
from web.table import RefusedError, Table

log = logging.getLogger("web")
WINDOW = 600.0  # seconds after the start time during which invited players may arrive
MAX_WAIT = 3600.0
_RULE_VALUE = (int, float, str, bool, type(None))


class Lobby(Hub):
    """A ``Hub`` that also matches players to tables and runs the schedule."""

    def __init__(self, store, *, window: float = WINDOW, **kwargs) -> None:
        super().__init__(store, **kwargs)
        self.window = window

    # ------------------------------------------------------------ listings
    def games(self) -> list[dict]:
        """The games this server can host now (a game whose module is missing is left out)."""
        out = []
        for name in game_names():
            try:
                game = get_game(name)
            except ImportError:
                continue
            out.append({"game": name, "presets": list(game.presets), "bots": bot_names(name),
                        "default_bot": default_bot(name),
                        "players": game.num_players(game.get_rules(game.presets[0]))})
        return out

    def listing(self, user_id: int) -> dict:
        mine, open_, playing = [], [], []
        for table in sorted(self.tables.values(), key=lambda t: (t.created, t.id)):
            line = table.summary(self.online(table))
            if table.seat_of(user_id) is not None:
                if table.status in ("waiting", "scheduled", "playing"):
                    mine.append(line)
            elif table.status == "waiting" and table.open_seats():
                open_.append(line)
            elif table.status == "playing":
                playing.append(line)
        return {"mine": mine, "open": open_, "playing": playing[-30:][::-1]}

    # -------------------------------------------------------------- checks
    def _game(self, game: str, preset: str | None, rules: dict | None):
        try:
            g = get_game(game)
        except ValueError as err:
            raise RefusedError(str(err)) from None
        except ImportError:
            raise RefusedError(f"game {game!r} is not available on this server yet") from None
        preset = preset or g.presets[0]
        if preset not in g.presets:
            raise RefusedError(f"unknown {game} preset {preset!r}; "
                               f"choose from {', '.join(g.presets)}")
        rules = {} if rules is None else rules
        if not isinstance(rules, dict) or not all(
                isinstance(k, str) and isinstance(v, _RULE_VALUE) for k, v in rules.items()):
            raise RefusedError(f"rules must be an object of field: value changes, got {rules!r}")
        try:
            num_players = g.num_players(g.get_rules(preset, **rules))
        except (ValueError, TypeError) as err:
            raise RefusedError(f"bad rules for {game}: {err}") from None
        return g, preset, rules, num_players

    @staticmethod
    def _bot(spec: str, game: str) -> str:
        try:
            make_bot(spec, game)
        except ValueError as err:
            raise RefusedError(str(err)) from None
        return spec.strip()

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

    # -------------------------------------------------------------- tables
    def create_table(self, user_id: int, game: str, preset: str | None = None,
                     rules: dict | None = None, seats: list[str] | None = None) -> Table:
        """A table with seats given as "me", "open" or "bot:<spec>" (default: me, rest open)."""
        g, preset, rules, n = self._game(game, preset, rules)
        seats = ["me"] + ["open"] * (n - 1) if seats is None else seats
        if not isinstance(seats, list) or len(seats) != n:
            raise RefusedError(f"a {game} table has {n} seats; got {seats!r}")
        if seats.count("me") != 1:
            raise RefusedError(f"name your own seat \"me\" exactly once, got {seats!r}")
        spec_seats: list[tuple[int | None, str | None]] = []
        for s in seats:
            if s == "me":
                spec_seats.append((user_id, None))
            elif s == "open":
                spec_seats.append((None, None))
            elif isinstance(s, str) and s.startswith("bot:"):
                spec_seats.append((None, self._bot(s.removeprefix("bot:"), game)))
            else:
                raise RefusedError(f"a seat is \"me\", \"open\" or \"bot:<name>\", got {s!r}")
        return self._create(host=user_id, game=game, preset=preset, rules=rules, kind="custom",
                            status="waiting", seats=spec_seats, bot_spec=None)

    def sit(self, user_id: int, table_id: int, seat: int | None = None) -> Table:
        """Take an open seat (the first one if none is named) at a waiting table."""
        table = self.table(table_id)
        if table.status != "waiting":
            raise RefusedError(f"table {table_id} is not taking players (status {table.status})")
        if table.seat_of(user_id) is not None:
            raise RefusedError(f"you already sit at table {table_id}")
        open_ = table.open_seats()
        if seat is None:
            if not open_:
                raise RefusedError(f"table {table_id} is full")
            seat = open_[0]
        if seat not in open_:
            raise RefusedError(f"seat {seat!r} at table {table_id} is not open; open: {open_}")
        self._seat_user(table, seat, user_id)
        if not table.open_seats():
            self.start(table)
        else:
            self.broadcast(table)
        return table

    def _seat_user(self, table: Table, seat: int, user_id: int) -> None:
        self.store.set_seat(table.id, seat, user_id, None)
        s = table.seats[seat]
        s.user_id, s.user_name = user_id, self.store.user_names([user_id])[user_id]

    def stand(self, user_id: int, table_id: int) -> Table:
        """Leave a table that has not started; with nobody left it is cancelled."""
        table = self.table(table_id)
        seat = table.seat_of(user_id)
        if seat is None:
            raise RefusedError(f"you have no seat at table {table_id}")
        if table.status != "waiting":
            raise RefusedError(f"table {table_id} has started; your seat stays yours")
        self.store.set_seat(table.id, seat, None, None)
        table.seats[seat].user_id = table.seats[seat].user_name = None
        if all(s.user_id is None for s in table.seats):
            self._cancel(table, "everyone left")
        else:
            self.broadcast(table)
        return table

    def _cancel(self, table: Table, reason: str) -> None:
        table.status = "cancelled"
        table.result = {"cancelled": reason}
        self.store.set_status(table.id, "cancelled", table.result)
        self.broadcast(table)
        self.evict(table)

    def _fill_with_bots(self, table: Table, seats: list[int]) -> None:
        spec = table.bot_spec or default_bot(table.game_name)
        for i in seats:
            self.store.set_seat(table.id, i, None, spec)
            table.seats[i].user_id = table.seats[i].user_name = None
            table.seats[i].bot_spec = spec

    # ---------------------------------------------------------- quick match
    def quick_match(self, user_id: int, game: str, preset: str | None = None,
                    fill_after: float | None = None, bot: str | None = None) -> Table:
        """Seat the player at the oldest table waiting for this game, or open a new one.

        ``fill_after``: seconds after which the empty seats get bots (None: wait for people).
        """
        g, preset, rules, n = self._game(game, preset, None)
        if fill_after is not None and (isinstance(fill_after, bool) or not isinstance(
                fill_after, (int, float)) or not 0 <= fill_after <= MAX_WAIT
                or math.isnan(fill_after)):
            raise RefusedError(f"fill_after is a number of seconds 0..{MAX_WAIT:g} or null, "
                               f"got {fill_after!r}")
        bot = self._bot(bot if bot is not None else default_bot(game), game)
        fill_at = None if fill_after is None else self.clock() + fill_after
        waiting = sorted((t for t in self.tables.values()
                          if t.kind == "quick" and t.status == "waiting" and t.game_name == game
                          and t.preset == preset), key=lambda t: (t.created, t.id))
        for table in waiting:
            if table.seat_of(user_id) is not None:
                return table  # already waiting here
        for table in waiting:
            if table.open_seats():
                if fill_at is not None and (table.fill_at is None or fill_at < table.fill_at):
                    table.fill_at = fill_at
                    self.store.set_fill_at(table.id, fill_at)
                self.sit(user_id, table.id)
                self.tick()
                return table
        table = self._create(host=user_id, game=game, preset=preset, rules=rules, kind="quick",
                             status="waiting", seats=[(user_id, None)] + [(None, None)] * (n - 1),
                             bot_spec=bot, fill_at=fill_at)
        self.tick()
        return table

    # ------------------------------------------------------------ schedule
    def schedule(self, user_id: int, game: str, starts_at: float, players: list[str],
                 preset: str | None = None, rules: dict | None = None, absent: str = "bot",
                 bot: str | None = None) -> Table:
        """A game at ``starts_at`` (epoch seconds) for ``players``: user names or "bot:<spec>"."""
        g, preset, rules, n = self._game(game, preset, rules)
        now = self.clock()
        if isinstance(starts_at, bool) or not isinstance(starts_at, (int, float)) \
                or math.isnan(starts_at) or not now - self.window < starts_at < now + 366 * 86400:
            raise RefusedError(f"starts_at must be a time (epoch seconds) from now to a year "
                               f"ahead, got {starts_at!r}")
        if absent not in ("bot", "cancel"):
            raise RefusedError(f"absent must be 'bot' or 'cancel', got {absent!r}")
        if not isinstance(players, list) or len(players) != n:
            raise RefusedError(f"a {game} game needs {n} players, got {players!r}")
        bot = self._bot(bot if bot is not None else default_bot(game), game)
        seats: list[tuple[int | None, str | None]] = []
        for p in players:
            if isinstance(p, str) and p.startswith("bot:"):
                seats.append((None, self._bot(p.removeprefix("bot:"), game)))
                continue
            user = self.store.user_by_name(p) if isinstance(p, str) else None
            if user is None:
                raise RefusedError(f"no user named {p!r}")
            if any(u == user["id"] for u, _ in seats):
                raise RefusedError(f"{user['name']} is invited twice")
            seats.append((user["id"], None))
        if all(u is None for u, _ in seats):
            raise RefusedError("invite at least one person")
        return self._create(host=user_id, game=game, preset=preset, rules=rules,
                            kind="scheduled", status="scheduled", seats=seats, bot_spec=bot,
                            starts_at=float(starts_at), absent=absent)

    def join(self, conn: Conn, table: Table) -> None:
        """Opening a scheduled table before its window closes is arriving for it."""
        seat = table.seat_of(conn.user_id)
        now = self.clock()
        if table.status == "scheduled" and seat is not None \
                and table.seats[seat].arrived is None and now < table.starts_at + self.window:
            table.seats[seat].arrived = now
            self.store.set_seat(table.id, seat, conn.user_id, None, arrived=now)
        super().join(conn, table)
        if table.status == "scheduled":
            self._check_schedule(table, now)

    def _check_schedule(self, table: Table, now: float) -> None:
        people = [i for i, s in enumerate(table.seats) if s.user_id is not None]
        missing = [i for i in people if table.seats[i].arrived is None]
        if now >= table.starts_at and not missing:
            self.start(table)
        elif now >= table.starts_at + self.window:
            if table.absent == "bot" and len(missing) < len(people):
                self._fill_with_bots(table, missing)
                self.start(table)
            else:
                names = ", ".join(table.seats[i].user_name for i in missing)
                self._cancel(table, f"not arrived within {self.window / 60:g} minutes: {names}")

    # --------------------------------------------------------------- clock
    def tick(self) -> None:
        """Fill quick-match tables whose wait is over; start or cancel scheduled games."""
        now = self.clock()
        for table in list(self.tables.values()):
            if table.status == "waiting" and table.fill_at is not None and now >= table.fill_at:
                self._fill_with_bots(table, table.open_seats())
                self.start(table)
            elif table.status == "scheduled":
                self._check_schedule(table, now)

    async def run_clock(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                self.tick()
            except Exception:
                log.exception("lobby clock tick failed")
