"""What the web table may tell everyone about a game, per game.

A seat always gets its own ``view(seat).to_dict()``: that is the PlayerView,
safe by construction. Two things need game knowledge and live here:

* ``spectator_view(state)``: the public part of the game for a watcher;
* ``public_event(before, state, seat, action)``: what everyone at the table
  may learn about a move that was just made (``before`` is what
  ``snapshot(state, seat)`` returned just before it). An event with
  ``"hold": True`` (a finished trick) is held on the players' screens until
  they go on, and their turn clocks wait meanwhile (``cardrl.web.hub``);
* ``marks(state)``: public markers the table shows beside the scores - who
  leads (``"leader"``) and one-line notes (``"notes"``: "spades broken") -
  or None.

The default adapter reveals nothing it cannot know to be public: spectators
get no view and a move is announced only as "seat N moved" (a sealed bid or a
drawn card stays secret). A game gets a richer table by adding a module here
named after it (``web/adapters/<game>.py``) that defines ``ADAPTER``.
"""

from __future__ import annotations

from typing import Any

from cardrl.envs.games import game_module


class WebAdapter:
    """The safe default for any game."""

    def spectator_view(self, state: Any) -> dict | None:
        return None

    def snapshot(self, state: Any, seat: int) -> Any:
        return None

    def public_event(self, before: Any, state: Any, seat: int, action: int) -> dict:
        return {"seat": seat}

    def marks(self, state: Any) -> dict | None:
        return None


_DEFAULT = WebAdapter()


def adapter_for(game: str) -> WebAdapter:
    """The game's adapter (``web/adapters/<game>.py``'s ``ADAPTER``), or the safe default."""
    module = game_module("cardrl.web.adapters", game)
    return _DEFAULT if module is None else module.ADAPTER
