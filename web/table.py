"""One table in the server: its seats, the engine state and what each seat is told.

The state lives only here; a seat is told ``state.view(seat).to_dict()`` and a
watcher only what the game's web adapter calls public. The table is rebuilt
from its stored row by replaying the move log from the stored seed, which is
how a restarted server resumes a game exactly.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agents.base import Bot
from envs.games import get_game
from web.adapters import adapter_for
from web.bots import make_bot


class RefusedError(Exception):
    """A request the server turns down; the message says why, and nothing changed."""


@dataclass
class Seat:
    user_id: int | None = None
    user_name: str | None = None
    bot_spec: str | None = None
    arrived: float | None = None
    bot: Bot | None = field(default=None, repr=False)

    @property
    def is_open(self) -> bool:
        return self.user_id is None and self.bot_spec is None


class Table:
    """Built from a stored row (``Store.table``) and the user names it needs."""

    def __init__(self, row: dict, names: dict[int, str]) -> None:
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
        self.created: float = row["created"]
        self.starts_at: float | None = row["starts_at"]
        self.absent: str | None = row["absent"]
        self.bot_spec: str | None = row["bot_spec"]
        self.fill_at: float | None = row["fill_at"]
        self.result: dict | None = row["result"]
        self.seats = [Seat(s["user_id"], names.get(s["user_id"]), s["bot"], s["arrived"])
                      for s in row["seats"]]
        self.adapter = adapter_for(self.game_name)
        self.state: Any = None
        self.ply = 0
        self.subscribers: set = set()  # connections watching or playing here
        self.bot_task: asyncio.Task | None = None
        if self.status in ("playing", "finished"):
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

    # ------------------------------------------------------------- play
    def start(self) -> None:
        """Deal from the stored seed and build the bots of the bot seats."""
        self.state = self.game.new_state(self.rules, self.seed)
        for i, seat in enumerate(self.seats):
            if seat.bot_spec is not None:
                seat.bot = make_bot(seat.bot_spec, self.game_name, seed=self.seed + i)

    def replay(self, moves: list[tuple[int, int]]) -> None:
        for seat, action in moves:
            if self.state.current_player != seat:
                raise ValueError(f"table {self.id}: stored move {self.ply} is by seat {seat}, "
                                 f"but seat {self.state.current_player} is to move")
            self.state.apply(action)
            self.ply += 1

    def bot_to_move(self) -> Seat | None:
        if self.status != "playing" or self.state.is_over:
            return None
        seat = self.seats[self.state.current_player]
        return seat if seat.bot is not None else None

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
        except (ValueError, IndexError, KeyError):
            return "no such action"

    def apply(self, seat: int, action: int) -> dict:
        """Play a checked move; returns the public event everyone at the table is told."""
        self.check_move(seat, action)
        before = self.adapter.snapshot(self.state, seat)
        self.state.apply(action)
        self.ply += 1
        return self.adapter.public_event(before, self.state, seat, action)

    def final_result(self) -> dict:
        return {"scores": list(self.state.scores), "winners": list(self.state.winners)}

    # --------------------------------------------------------- messages
    def message(self, seat: int | None, event: dict | None = None,
                online: set[int] | None = None) -> dict:
        """What the holder of ``seat`` (None: a watcher) is told about this table."""
        view, legal = None, []
        if self.state is not None:
            if seat is None:
                view = self.adapter.spectator_view(self.state)
            else:
                view = self.state.view(seat).to_dict()
                if self.status == "playing" and self.state.current_player == seat:
                    legal = [[a, self.game.action_name(a)] for a in self.state.legal_actions()]
        online = online or set()
        return {
            "type": "table",
            "table": self.id,
            "game": self.game_name,
            "preset": self.preset,
            "kind": self.kind,
            "status": self.status,
            "seat": seat,
            "ply": self.ply,
            "players": [self.player_info(s, online) for s in self.seats],
            "starts_at": self.starts_at,
            "fill_at": self.fill_at,
            "absent": self.absent,
            "view": view,
            "legal": legal,
            "event": event,
            "result": self.result,
        }

    @staticmethod
    def player_info(seat: Seat, online: set[int]) -> dict:
        if seat.bot_spec is not None:
            return {"name": seat.bot_spec, "bot": True, "online": True,
                    "arrived": True, "open": False}
        return {"name": seat.user_name, "bot": False, "online": seat.user_id in online,
                "arrived": seat.arrived is not None, "open": seat.user_id is None}

    def summary(self, online: set[int] | None = None) -> dict:
        """The lobby's line for this table."""
        online = online or set()
        return {
            "table": self.id, "game": self.game_name, "preset": self.preset, "kind": self.kind,
            "status": self.status, "players": [self.player_info(s, online) for s in self.seats],
            "open_seats": len(self.open_seats()), "starts_at": self.starts_at,
            "fill_at": self.fill_at, "absent": self.absent, "created": self.created,
        }
