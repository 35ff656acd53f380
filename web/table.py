"""One table in the server: its seats, the engine state and what each seat is told.

The state lives only here; a seat is told ``state.view(seat).to_dict()`` and a
watcher only what the game's web adapter calls public. The table is rebuilt
from its stored row by replaying the move log from the stored seed, which is
how a restarted server resumes a game exactly.

The turn clock lives here too (in memory: a restart gives everyone a fresh
clock): a person to move has ``turn`` seconds while at the table, or ``grace``
seconds once gone from it; then a stand-in bot plays the seat, at once on each
of its turns, until the person comes back. The clock runs only while some
seated person is at the table: nobody is kept waiting otherwise.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from cardrl.envs.games import get_game
from cardrl.web.adapters import adapter_for
from cardrl.web.bots import BotError, Bots


class RefusedError(Exception):
    """A request the server turns down; the message says why, and nothing changed."""

    status = 400


class NotFoundError(RefusedError):
    """A request for a table that does not exist."""

    status = 404


@dataclass
class Seat:
    """One seat: a person (``user_id``), a bot (``bot_spec``), or open (neither)."""

    user_id: int | None = None
    user_name: str | None = None
    bot_spec: str | None = None
    arrived: float | None = None
    away: bool = False  # a person whose turn clock ran out: the stand-in bot plays for them

    @property
    def is_open(self) -> bool:
        return self.user_id is None and self.bot_spec is None

    @property
    def is_person(self) -> bool:
        return self.user_id is not None and self.bot_spec is None


class Table:
    """Built from a stored row (``Store.table``), the user names it needs and the bot list."""

    def __init__(self, row: dict, names: dict[int, str], bots: Bots, now: float = 0.0,
                 deal: bool = True) -> None:
        """``deal=False``: seats and status only, no game state (a lobby line)."""
        self.id: int = row["id"]
        self.game_name: str = row["game"]
        self.game = get_game(self.game_name)
        self.preset: str = row["preset"]
        self.rule_changes: dict = row["rules"]
        self.rules = self.game.get_rules(self.preset, **self.rule_changes)
        self.seed: int = row["seed"]
        self.kind: str = row["kind"]
        self.status: str = row["status"]
        self.host: int | None = row["host"]
        self.host_name: str | None = names.get(self.host)  # read with the seats' names
        self.created: float = row["created"]
        self.starts_at: float | None = row["starts_at"]
        self.absent: str | None = row["absent"]
        self.bot_spec: str | None = row["bot_spec"]
        self.fill_at: float | None = row["fill_at"]
        self.result: dict | None = row["result"]
        self.seats = [Seat(s["user_id"], names.get(s["user_id"]), s["bot"], s["arrived"])
                      for s in row["seats"]]
        self.bots = bots
        self.adapter = adapter_for(self.game_name)
        self.state: Any = None
        self.ply = 0
        self.subscribers: set = set()  # connections watching or playing here
        self.elsewhere: set[int] = set()  # users following it through other servers
        self.bot_task: asyncio.Task | None = None
        # a move being stored off the event loop (``Hub.move``): done once applied; the
        # moves sent meanwhile wait in ``after``
        self.pending: asyncio.Future | None = None
        self.after: list = []
        self.turn_since = now  # when the seat to move got its turn
        self.empty_since: float | None = now  # since when no seated person is at the table
        self.left_at: dict[int, float] = {}  # seat -> when its person last left the table
        self.loaded_at = 0.0  # when the server built it (monotonic; a copy is kept a while)
        self.notice: str | None = None  # a line for everyone (a bot replaced, a seat taken over)
        # seat -> (ply, since when): a person who has not gone on from a held move yet
        self.unseen: dict[int, tuple[int, float]] = {}
        if deal and self.status in ("playing", "finished"):
            self.start()
            self.replay(row["moves"])

    # ------------------------------------------------------------ seats
    @property
    def num_players(self) -> int:
        return len(self.seats)

    def seat_of(self, user_id: int | None) -> int | None:
        for i, seat in enumerate(self.seats):
            if user_id is not None and seat.user_id == user_id:
                return i
        return None

    def open_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_open]

    def people(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_person]

    def present(self) -> set[int]:
        """User ids with a connection following this table (here or through another server)."""
        return {c.user_id for c in self.subscribers} | self.elsewhere

    def standin(self) -> str | None:
        """The bot that plays for an absent person: the table's bot, else the default."""
        if self.bot_spec is not None and self.bots.cannot_play(
                self.bot_spec, self.game_name, self.rules) is None:
            return self.bot_spec
        return self.bots.default(self.game_name, self.rules)

    # ------------------------------------------------------------- play
    def start(self) -> None:
        """Deal from the stored seed; every bot seat must hold a bot this server offers."""
        for seat in self.seats:
            if seat.bot_spec is not None:
                try:
                    self.bots.check(seat.bot_spec, self.game_name, self.rules)
                except BotError as err:
                    raise RefusedError(f"table {self.id} cannot be played here: {err}") \
                        from None
        self.state = self.game.new_state(self.rules, self.seed)

    def replay(self, moves: list[tuple[int, int]]) -> None:
        for seat, action in moves:
            if self.state.current_player != seat:
                raise ValueError(f"table {self.id}: stored move {self.ply} is by seat {seat}, "
                                 f"but seat {self.state.current_player} is to move")
            self.state.apply(action)
            self.ply += 1

    def to_move(self) -> int | None:
        if self.status != "playing" or self.state is None or self.state.is_over:
            return None
        return self.state.current_player

    def anyone_here(self) -> bool:
        """Whether a seated person has the table open."""
        present = self.present()
        return any(self.seats[i].user_id in present for i in self.people())

    def bot_to_move(self) -> tuple[int, str] | None:
        """(seat, bot spec) when a bot is to move: a bot seat, or the stand-in of a person
        who is away - while someone is at the table to play with (with nobody left the
        game waits for a person to come back, or for the table to be closed)."""
        seat = self.to_move()
        if seat is None:
            return None
        s = self.seats[seat]
        if s.bot_spec is not None:
            return seat, s.bot_spec
        if s.away and self.anyone_here():
            spec = self.standin()
            return None if spec is None else (seat, spec)
        return None

    def bot_seed(self, seat: int) -> int:
        """The seed a bot's move is played with: the same position, the same move."""
        return (self.seed + 1_000_003 * self.ply + seat) % (1 << 63)

    def hold(self, now: float) -> None:
        """A move everyone sees held until they go on: the clocks of the people here wait."""
        present = self.present()
        for i in self.people():
            if self.seats[i].user_id in present:
                self.unseen[i] = (self.ply, now)

    def ready(self, seat: int, ply: Any, now: float) -> bool:
        """``seat`` went on from the held move it saw at ``ply``; True if its clock starts."""
        held = self.unseen.get(seat)
        if held is None or (isinstance(ply, int) and ply < held[0]):
            return False  # an older hold; a newer one is still on the screen
        del self.unseen[seat]
        if self.to_move() == seat:
            self.turn_since = max(self.turn_since, now)
            return True
        return False

    def deadline(self, turn: float, grace: float) -> float | None:
        """When a stand-in takes over the person to move; None if no person's clock runs.

        While the person still looks at a held move their clock waits, at most
        ``turn`` seconds from the hold."""
        seat = self.to_move()
        if seat is None:
            return None
        s = self.seats[seat]
        if not s.is_person or s.away or not self.anyone_here():
            return None  # with nobody at the table, nobody waits for the move
        held = self.unseen.get(seat)
        at = (max(self.turn_since, held[1] + turn) if held else self.turn_since) + turn
        if s.user_id not in self.present():
            at = min(at, max(self.turn_since, self.left_at.get(seat, self.turn_since)) + grace)
        return at

    def check_move(self, seat: int, action: Any) -> None:
        """Raise RefusedError, naming the reason, unless ``seat`` may play ``action`` now."""
        if self.status != "playing":
            raise RefusedError(f"table {self.id} is not playing (status {self.status})")
        to_move = self.state.current_player
        if seat != to_move:
            raise RefusedError(f"not your turn at table {self.id}: seat {to_move} is to move, "
                               f"you are seat {seat}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RefusedError(f"an action is an integer id, got {action!r}")
        legal = self.state.legal_actions()
        if action not in legal:
            names = ", ".join(self.game.action_name(a) for a in legal)
            raise RefusedError(f"illegal action {action} ({self._name(action)}) at table "
                               f"{self.id}; legal: {names}")

    def _name(self, action: int) -> str:
        try:
            return self.game.action_name(action)
        except (ValueError, IndexError, KeyError, TypeError):
            return "no such action"

    def apply(self, seat: int, action: int) -> dict:
        """Play a checked move; returns the public event everyone at the table is told."""
        self.check_move(seat, action)
        before = self.adapter.snapshot(self.state, seat)
        self.state.apply(action)
        self.ply += 1
        self.unseen.pop(seat, None)  # whoever moves has gone on from any held move
        return self.adapter.public_event(before, self.state, seat, action)

    def final_result(self) -> dict:
        return {"scores": list(self.state.scores), "winners": list(self.state.winners)}

    # --------------------------------------------------------- messages
    def message(self, seat: int | None, event: dict | None = None,
                online: set[int] | None = None, clock: dict | None = None) -> dict:
        """What the holder of ``seat`` (None: a watcher) is told about this table."""
        view, legal = None, []
        if self.state is not None:
            if seat is None:
                view = self.adapter.spectator_view(self.state)
            else:
                view = self.state.view(seat).to_dict()
                if self.status == "playing" and self.state.current_player == seat \
                        and not self.seats[seat].away:
                    legal = [[a, self.game.action_name(a)] for a in self.state.legal_actions()]
        online = online or set()
        return {
            "type": "table",
            "table": self.id,
            "game": self.game_name,
            "preset": self.preset,
            "rules": self.rule_changes,
            "kind": self.kind,
            "status": self.status,
            "seat": seat,
            "ply": self.ply,
            "players": [self.player_info(s, online, self.bots) for s in self.seats],
            "starts_at": self.starts_at,
            "fill_at": self.fill_at,
            "absent": self.absent,
            "view": view,
            "legal": legal,
            "event": event,
            "result": self.result,
            "clock": clock,
            "notice": self.notice,
            "marks": None if self.state is None or self.status != "playing"
            else self.adapter.marks(self.state),
            # at the end, every hand's summary (public once the game is over)
            "hands": self.hands() if self.status == "finished" else None,
        }

    def hands(self) -> list[dict]:
        return [r.to_dict() for r in getattr(self.state, "results", ())]

    @staticmethod
    def player_info(seat: Seat, online: set[int], bots: Bots | None = None) -> dict:
        if seat.bot_spec is not None:
            info = {"name": seat.bot_spec, "bot": True, "online": True,
                    "arrived": True, "open": False, "away": False}
            if bots is not None and bots.owned(seat.bot_spec):  # an upload keeps its name
                info["label"] = bots.label(seat.bot_spec)
            return info
        return {"name": seat.user_name, "bot": False, "online": seat.user_id in online,
                "arrived": seat.arrived is not None, "open": seat.user_id is None,
                "away": seat.away}

    def summary(self, online: set[int] | None = None) -> dict:
        """The lobby's line for this table."""
        online = online or set()
        return {
            "table": self.id, "game": self.game_name, "preset": self.preset,
            "rules": self.rule_changes, "kind": self.kind,
            "status": self.status,
            "players": [self.player_info(s, online, self.bots) for s in self.seats],
            "open_seats": len(self.open_seats()), "starts_at": self.starts_at,
            "fill_at": self.fill_at, "absent": self.absent, "created": self.created,
        }
