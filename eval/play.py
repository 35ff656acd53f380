"""Play one tournament game and describe it as a JSON-ready log.

Only the generic game API is used (``envs.games``: new_state, action_name; the
state's current_player, legal_actions, apply, view, is_over, winners, scores,
results), so any registered game can be played. Bots are built here from their
specs, which keeps this function safe to run in a spawned worker process.
"""

from __future__ import annotations

from typing import Any

import agents
from envs import cards
from eval.config import TournamentConfig, as_json, rules_dict
from eval.stats import average_ranks, win_shares

LOG_FORMAT = "cardrl-game-log/1"


class BotError(RuntimeError):
    """A bot raised or answered with an action outside the legal set."""


def game_header(cfg: TournamentConfig, deal: int, rotation: int) -> dict:
    """The fields that fix a game before it is played; a stored log must match them."""
    return as_json({
        "format": LOG_FORMAT,
        "game": cfg.game,
        "preset": cfg.preset,
        "rule_changes": dict(cfg.rule_changes),
        "rules": rules_dict(cfg.rules()),
        "tournament_seed": cfg.seed,
        "deal": deal,
        "rotation": rotation,
        "seed": cfg.deal_seed(deal),
        "seats": cfg.seat_bots(rotation),
        "lineup_entries": cfg.seat_entries(rotation),
        "bot_seeds": [cfg.bot_seed(deal, rotation, s) for s in range(cfg.num_seats)],
    })


def _dealt_hands(state: Any, num_seats: int) -> list[list[str]] | None:
    """Each seat's cards as names, where the game's views have a ``hand``."""
    hands = []
    for seat in range(num_seats):
        hand = getattr(state.view(seat), "hand", None)
        if hand is None:
            return None
        hands.append(cards.names(hand))
    return hands


def _result_dict(result: Any) -> Any:
    return result.to_dict() if hasattr(result, "to_dict") else result


def play_game(cfg: TournamentConfig, deal: int, rotation: int) -> dict:
    """Play (deal, rotation) of the tournament; return its full log."""
    log = game_header(cfg, deal, rotation)
    game = cfg.get_game()
    rules = cfg.rules()
    n = cfg.num_seats
    bots = []
    for seat, spec in enumerate(log["seats"]):
        bot = agents.make(spec)
        bot.reset(log["bot_seeds"][seat])
        bots.append(bot)

    state = game.new_state(rules, log["seed"])
    hands = [_dealt_hands(state, n)]
    actions = []
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        try:
            action = bots[seat].act(state.view(seat), legal)
        except Exception as err:
            raise BotError(f"bot {log['seats'][seat]!r} at seat {seat} raised {err!r} "
                           f"(deal {deal}, rotation {rotation}, move {len(actions)})") from err
        if action not in legal or isinstance(action, bool):
            raise BotError(f"bot {log['seats'][seat]!r} at seat {seat} played illegal action "
                           f"{action!r}; legal: {legal} (deal {deal}, rotation {rotation}, "
                           f"move {len(actions)})")
        action = int(action)
        hands_before = len(state.results)
        state.apply(action)
        actions.append([seat, action, game.action_name(action)])
        if len(state.results) != hands_before and not state.is_over:
            hands.append(_dealt_hands(state, n))

    scores = [s.item() if hasattr(s, "item") else s for s in state.scores]  # numpy -> int
    max_hands = getattr(rules, "max_hands", None)
    log.update({
        "actions": actions,
        "dealt_hands": hands if hands[0] is not None else None,
        "hand_results": [_result_dict(r) for r in state.results],
        "num_hands": len(state.results),
        "hit_hand_cap": max_hands is not None and len(state.results) >= max_hands,
        "scores": scores,
        "winners": sorted(int(w) for w in state.winners),
        "win_shares": win_shares(n, state.winners),
        "ranks": average_ranks(scores),
    })
    return log


def game_record(log: dict) -> dict:
    """The part of a log the summary needs (the same whether played now or read back)."""
    return {k: log[k] for k in ("deal", "rotation", "seats", "scores", "winners", "win_shares",
                                "ranks", "num_hands", "hit_hand_cap")}
