"""Play one tournament game and describe it as a JSON-ready log.

Only the generic game API is used (``cardrl.envs.games``: new_state, action_name,
public_parameters; the state's current_player, legal_actions, apply, view, is_over, winners, scores,
results), so any registered game can be played. Bots are built here from their
specs, which keeps this function safe to run in a spawned worker process. The
bots' optional hooks (``cardrl.agents.base.Bot``: start_game, receive_cards,
observe_move, report_score) are called where a bot overrides them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.envs import cards
from cardrl.eval import bot_process
from cardrl.eval.bot_process import ProcessBot, ProcessBotError
from cardrl.eval.config import TournamentConfig, as_json, rules_dict
from cardrl.eval.stats import average_ranks, win_shares

LOG_FORMAT = "cardrl-game-log/1"
HOOKS = ("start_game", "receive_cards", "observe_move", "report_score")


class BotError(RuntimeError):
    """A bot raised, played an action outside the legal set, timed out or failed to load.

    ``kind`` says which (raised, illegal, timeout, crashed, load); the other fields
    say where, and ``log`` holds the game up to the failure.
    """

    def __init__(self, message: str, kind: str = "raised", bot: str | None = None,
                 entry: int | None = None, seat: int | None = None, deal: int | None = None,
                 rotation: int | None = None, move: int | None = None,
                 log: dict | None = None) -> None:
        super().__init__(message)
        self.kind, self.bot, self.entry, self.seat = kind, bot, entry, seat
        self.deal, self.rotation, self.move, self.log = deal, rotation, move, log

    def __reduce__(self):  # keep the fields across a worker process boundary
        return (_rebuild_bot_error, (str(self), dict(self.__dict__)))

    def record(self) -> dict:
        """The disqualification record: who, why, where."""
        return {"bot": self.bot, "entry": self.entry, "kind": self.kind, "reason": str(self),
                "deal": self.deal, "rotation": self.rotation, "seat": self.seat,
                "move": self.move}


def _rebuild_bot_error(message: str, fields: dict) -> BotError:
    err = BotError(message)
    err.__dict__.update(fields)
    return err


def game_header(cfg: TournamentConfig, deal: int, rotation: int,
                table: Sequence[int] | None = None, excluded: Sequence[int] = ()) -> dict:
    """The fields that fix a game before it is played; a stored log must match them.

    ``table`` is the deal's lineup entries (default: the whole lineup) and
    ``excluded`` the disqualified entries, recorded only when there are some.
    """
    table = tuple(range(cfg.num_seats)) if table is None else tuple(table)
    header = {
        "format": LOG_FORMAT,
        "game": cfg.game,
        "preset": cfg.preset,
        "rule_changes": dict(cfg.rule_changes),
        "rules": rules_dict(cfg.rules(len(table))),
        "tournament_seed": cfg.seed,
        "deal": deal,
        "rotation": rotation,
        "seed": cfg.deal_seed(deal),
        "seats": cfg.seat_bots(rotation, table),
        "lineup_entries": cfg.seat_entries(rotation, table),
        "bot_seeds": [cfg.bot_seed(deal, rotation, s) for s in range(len(table))],
    }
    if excluded:
        header["excluded"] = sorted(excluded)
    return as_json(header)


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


def _hooked(bot: Bot) -> dict[str, bool]:
    """Which optional hooks ``bot`` overrides (the others are not called: they do nothing)."""
    return {h: getattr(type(bot), h) is not getattr(Bot, h) for h in HOOKS}


class _Seats:
    """The bots at one game's seats, and turning their failures into ``BotError``."""

    def __init__(self, cfg: TournamentConfig, log: dict) -> None:
        self.cfg, self.log = cfg, log
        self.actions: list[list] = []
        self.bots: list[Bot] = []
        for seat, spec in enumerate(log["seats"]):
            self.bots.append(self._make(seat, spec))
        self.hooked = [_hooked(b) for b in self.bots]

    def _make(self, seat: int, spec: str) -> Bot:
        cfg = self.cfg
        if not cfg.runs_in_own_process(spec):
            return agents.make(spec)
        try:
            bot = bot_process.get(self.log["lineup_entries"][seat], spec, cfg.game,
                                  cfg.answer_limit(spec))
        except ProcessBotError as err:
            raise self.error(seat, err.kind, f"could not be loaded: {err}") from None
        if bot.game not in (None, cfg.game):
            bot_process.discard(bot)
            raise self.error(seat, "load", f"plays {bot.game}, not {cfg.game}")
        return bot

    def error(self, seat: int, kind: str, what: str) -> BotError:
        log = self.log
        spec = log["seats"][seat]
        message = (f"bot {spec!r} at seat {seat} {what} (deal {log['deal']}, rotation "
                   f"{log['rotation']}, move {len(self.actions)})")
        partial = {**log, "actions": list(self.actions), "failure": {"kind": kind,
                                                                     "reason": message}}
        if isinstance(self.bots[seat] if seat < len(self.bots) else None, ProcessBot):
            bot_process.discard(self.bots[seat])
        return BotError(message, kind, spec, log["lineup_entries"][seat], seat, log["deal"],
                        log["rotation"], len(self.actions), partial)

    def call(self, seat: int, method: str, *args) -> Any:
        try:
            return getattr(self.bots[seat], method)(*args)
        except ProcessBotError as err:  # its message says what happened
            raise self.error(seat, err.kind, str(err)) from None
        except Exception as err:
            raise self.error(seat, "raised", f"raised {err!r}") from err

    def notify(self, hook: str, seats: Sequence[int], *args) -> None:
        for seat in seats:
            if self.hooked[seat][hook]:
                self.call(seat, hook, *args)


def play_game(cfg: TournamentConfig, deal: int, rotation: int,
              table: Sequence[int] | None = None, excluded: Sequence[int] = ()) -> dict:
    """Play (deal, rotation) of the tournament; return its full log.

    Bots in this process are built afresh from their specs; bots in their own
    process (``cfg.runs_in_own_process``) are reused from game to game. A bot's
    failure raises ``BotError``.
    """
    log = game_header(cfg, deal, rotation, table, excluded)
    game = cfg.get_game()
    n = len(log["seats"])
    rules = cfg.rules(n)
    play = _Seats(cfg, log)
    for seat in range(n):
        play.call(seat, "reset", log["bot_seeds"][seat])

    state = game.new_state(rules, log["seed"])
    everyone = range(n)
    parameters = {"game": cfg.game, "rules": rules_dict(rules)}
    parameters.update(game.public_parameters(state))
    for seat in everyone:
        play.notify("start_game", (seat,), seat, n, as_json(parameters))
    hands = [_dealt_hands(state, n)]

    def deal_cards() -> None:
        for seat in everyone:
            if play.hooked[seat]["receive_cards"]:
                play.call(seat, "receive_cards", list(state.view(seat).hand))

    if hands[0] is not None:
        deal_cards()
    actions = play.actions
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        action = play.call(seat, "act", state.view(seat), legal)
        if isinstance(action, bool) or not isinstance(action, int | np.integer) \
                or action not in legal:
            raise play.error(seat, "illegal", f"played illegal action {action!r}; legal: {legal}")
        action = int(action)
        hands_before = len(state.results)
        state.apply(action)
        actions.append([seat, action, game.action_name(action)])
        play.notify("observe_move", [s for s in everyone if s != seat], seat, action)
        if len(state.results) != hands_before and not state.is_over:
            hands.append(_dealt_hands(state, n))
            if hands[-1] is not None:
                deal_cards()
    reported = [play.call(s, "report_score") if play.hooked[s]["report_score"] else None
                for s in everyone]

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
    if any(r is not None for r in reported):
        log["reported_scores"] = as_json(reported)
    return log


def game_record(log: dict) -> dict:
    """The part of a log the summary needs (the same whether played now or read back)."""
    return {k: log[k] for k in ("deal", "rotation", "seats", "lineup_entries", "scores",
                                "winners", "win_shares", "ranks", "num_hands", "hit_hand_cap")}
