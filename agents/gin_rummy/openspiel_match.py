"""Our Gin Rummy bots inside OpenSpiel's own ``gin_rummy`` game, against its simple bot.

    python -m cardrl.agents.gin_rummy.openspiel_match --bot gin_rummy/expert --deals 50 --seed 0

OpenSpiel's game decides everything: the legal actions, the deal and the stock (chance
outcomes this module draws and replays), and the score (``state.returns()``). Our bot only
picks among OpenSpiel's legal actions. To give it its observation, the hand is *mirrored*:
every chance outcome and every move is replayed into our engine
(``cardrl.envs.gin_rummy.GinRummyState``) with the ``standard`` preset, the bot reads its
seat's view there, and its action is mapped back. Where the two disagree on what is legal
for our bot, ``MirrorError`` stops the run with both states (nothing falls back silently).

OpenSpiel's defaults (knock card 10, gin and undercut bonuses 25, layoffs, hand dead at a
two-card stock) are our ``standard`` preset's. Where the games differ, and what is done:

* **one hand.** OpenSpiel's game is a single hand, player 0 moving first. Matches to
  ``target`` (100) points chain hands: the winner of a hand scores its return, and the
  seat that moves first alternates from hand to hand. The mirror of a hand is a fresh
  engine hand (dealer seat 0, so seat 1 moves first) whose view the bot gets with the
  match's scores and hand number put in.
* **the first upcard.** OpenSpiel lets player 0 take the upcard or pass, then player 1,
  and if both pass player 0 draws from the stock. Our engine has only "take the discard or
  draw the stock". A player asked first is shown our engine's first turn with itself to
  move: taking is taking, drawing the stock is passing. Once a player takes the upcard,
  or both pass, the mirror is built with that player (player 0 on two passes) moving
  first; the passes themselves are not in our view.
* **the taken card.** Our rules forbid discarding the card just taken from the pile
  (``no_discard_of_taken``); OpenSpiel allows it. Our bot is never offered it; an
  opponent that does it can only be mirrored where it ends the hand (a knock), and is
  counted (``taken_discards``).
* **knocking and melding.** Our engine melds by itself when a hand is knocked; OpenSpiel
  asks for a knock, a discard, each meld and pass, then the other player's layoffs and
  melds. For our bot: its knock-and-discard action is OpenSpiel's knock then that
  discard; its melds are those our engine's settlement uses (``HandResult.knocker_melds``;
  runs over five cards are laid as shorter runs, OpenSpiel's longest meld); as the
  defender it lays off what our meld solver finds best onto the melds OpenSpiel's
  knocker actually laid (``melds.layoff_deadwood``), then melds the rest at best.
  OpenSpiel's simple bot never lays off, so against it our knocker's choice of melds
  does not matter.
* **when a knock is legal.** Ours: some discard leaves at most 10 deadwood. OpenSpiel
  offers the knock only if its shortcut for 11 cards does: one best meld split of the 11
  cards, less its highest-ranked deadwood card. That can be more than the true least
  (sets 444 and 666 beside runs 456 456), so OpenSpiel then refuses a knock our engine
  allows: our bot is offered only the moves both allow (a plain discard), and such
  decisions are counted (``refused_knocks``). The discard after OpenSpiel's knock is
  checked exactly, so the knocks it offers are ours.
* **ties.** A knock tied on deadwood is an undercut in our ``standard`` preset (25 to the
  defender); OpenSpiel scores it 0 for both. OpenSpiel's score counts.
* **the wall.** Our ``standard`` hand is dead as soon as a turn leaves two stock cards;
  OpenSpiel then lets the next player take the upcard only to knock. That phase is not in
  our engine, so OpenSpiel's simple bot plays it for our seat too (knock if it may), and
  such hands are counted (``wall_knocks``).
* **endless hands.** OpenSpiel ends a hand as a draw at its 50th upcard draw (and after
  two upcards discarded at once in a row); our engine's cap is 400 moves.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from cardrl.agents.base import Bot
from cardrl.envs import cards
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    action_card,
    is_knock,
)
from cardrl.envs.gin_rummy.engine import GinRummyState, IllegalActionError
from cardrl.envs.gin_rummy.melds import (
    best_split,
    cards_of,
    is_set,
    layoff_deadwood,
    mask_of,
    rank_low,
)
from cardrl.envs.gin_rummy.rules import STANDARD
from cardrl.eval.stats import Estimate, mean_ci

try:
    import pyspiel
except ModuleNotFoundError as err:  # the openspiel extra
    raise ModuleNotFoundError(f"cardrl.agents.gin_rummy.openspiel_match needs OpenSpiel (pip "
                              f"install -e '.[openspiel]'): {err}") from None

GAME = "gin_rummy"
SIMPLE = "openspiel/simple"  # OpenSpiel's SimpleGinRummyBot, as a spec of this module
RULES = STANDARD  # the preset closest to OpenSpiel's defaults (module docstring)
# OpenSpiel's gin_rummy actions (games/gin_rummy/gin_rummy.h): 0-51 cards, then these
OS_DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK, OS_MELD_BASE = 52, 53, 54, 55, 56
OS_NUM_MELDS = 185
OS_LONGEST_RUN = 5  # OpenSpiel's meld actions: sets of 3 and 4, runs of 3 to 5
_SUIT_TO_OURS = (3, 0, 1, 2)  # OpenSpiel's suits s c d h; ours are C D H S


def our_card(os_card: int) -> int:
    """Our card id of OpenSpiel's card ``suit * 13 + rank`` (ranks A..K, suits s c d h)."""
    return cards.card((os_card % 13 - 1) % 13, _SUIT_TO_OURS[os_card // 13])


OUR_CARD: tuple[int, ...] = tuple(our_card(c) for c in range(52))
OS_CARD: tuple[int, ...] = tuple(OUR_CARD.index(c) for c in range(52))


@cache
def os_melds_by_id() -> tuple[frozenset[int], ...]:
    """The cards (our ids) of each OpenSpiel meld id, read from its action names."""
    state = pyspiel.load_game(GAME).new_initial_state()
    out = []
    for meld in range(OS_NUM_MELDS):
        text = state.action_to_string(0, OS_MELD_BASE + meld).split("Action: ")[1]
        out.append(frozenset(cards.parse(text[i:i + 2]) for i in range(0, len(text), 2)))
    return tuple(out)


@cache
def os_melds() -> dict[frozenset[int], int]:
    """OpenSpiel's meld ids by their cards (our ids)."""
    return {m: i for i, m in enumerate(os_melds_by_id())}


def meld_actions(melds: Sequence[Sequence[int]]) -> list[int]:
    """OpenSpiel meld actions laying ``melds`` (our card ids); a run longer than five
    cards is laid as runs of three and the rest."""
    table = os_melds()
    out = []
    for meld in melds:
        cs = sorted(meld, key=rank_low)
        if not is_set(mask_of(cs)):
            while len(cs) > OS_LONGEST_RUN:
                out.append(OS_MELD_BASE + table[frozenset(cs[:3])])
                cs = cs[3:]
        out.append(OS_MELD_BASE + table[frozenset(cs)])
    return out


class MirrorError(RuntimeError):
    """Our engine and OpenSpiel disagree (legal actions, cards): raised with both states."""


@dataclass
class Deal:
    """One hand's chance outcomes, OpenSpiel card ids in the order OpenSpiel asks for them:
    player 0's ten cards, player 1's ten, the upcard, then the stock from the top."""

    order: tuple[int, ...]

    @classmethod
    def random(cls, rng: np.random.Generator) -> Deal:
        return cls(tuple(int(c) for c in rng.permutation(52)))


class Mirror:
    """One OpenSpiel hand in our engine. OpenSpiel's ``first`` player (the first to draw) is
    our seat 1, the other our seat 0 (the dealer of a fresh ``standard`` engine)."""

    def __init__(self, deal: Deal, first: int) -> None:
        self.first = first
        self.seat = (1, 0) if first == 0 else (0, 1)  # OpenSpiel player -> our seat
        order = [OUR_CARD[c] for c in deal.order]
        hands = [order[0:10], order[10:20]]
        if first == 0:
            hands.reverse()  # seat 0 holds the other player's hand
        self.state = GinRummyState(RULES, rng=0, deal=[*hands, order[20:]])

    @property
    def over(self) -> bool:
        """Whether the mirrored hand has ended (the engine deals on: results tell)."""
        return bool(self.state.results)

    def view(self, player: int, scores: Sequence[int], hand_number: int):
        """``player``'s view, with the match's scores (by OpenSpiel player) and hand."""
        by_seat = [0, 0]
        for p, s in enumerate(scores):
            by_seat[self.seat[p]] = s
        return dataclasses.replace(self.state.view(self.seat[player]), scores=tuple(by_seat),
                                   hand_number=hand_number)

    def apply(self, action: int) -> None:
        self.state.apply(action)

    def returns(self) -> list[int] | None:
        """What our engine scored the hand, as OpenSpiel returns per player (None: not over)."""
        if not self.over:
            return None
        points = self.state.results[0].points
        return [points[self.seat[p]] - points[self.seat[1 - p]] for p in range(2)]


def _os_phase(state) -> str:
    return state.current_phase().name


def _describe(state, mirror: Mirror | None) -> str:
    """Both states, for an error."""
    text = f"OpenSpiel state:{state}\nour mirror: {mirror and mirror.state!r}"
    ours = mirror.state if mirror is not None and not mirror.over else None
    seat = None if ours is None else ours.current_player
    if ours is not None and seat is not None:
        text += f", legal {ours.legal_actions()}, view {ours.view(seat).to_dict()}"
    return text


class Table:
    """One OpenSpiel hand being played, with its mirror: what players read."""

    def __init__(self, game, deal: Deal, scores: Sequence[int], hand_number: int,
                 check: bool = False) -> None:
        self.deal = deal
        self.state = game.new_initial_state()
        self.scores = tuple(scores)
        self.hand_number = hand_number
        self.check = check
        self.mirror: Mirror | None = None
        self.chance = 0
        self.knock_pending = False  # OpenSpiel's knock taken, its discard not yet
        self.taken_discards = 0
        self.wall_knocks = 0
        self.refused_knocks = 0  # our bot's decisions where OpenSpiel refused our knocks
        self.mirror_stopped: str | None = None
        self.checked = 0  # decisions whose legal sets were compared (check=True)

    # ------------------------------------------------------------- mirror
    def provisional(self, player: int) -> Mirror:
        """Our engine's first turn with ``player`` to move (the first upcard)."""
        return Mirror(self.deal, player)

    def mirrored(self, player: int) -> bool:
        """Whether ``player``'s decision now is one our engine has (``mapped_legal``)."""
        phase, m = _os_phase(self.state), self.mirror
        if phase == "FIRST_UPCARD":
            return self.state.legal_actions() != [OS_DRAW_STOCK]
        live = m is not None and not m.over and m.state.current_player == m.seat[player]
        return live and (phase in ("DRAW", "DISCARD") or phase == "KNOCK" and self.knock_pending)

    def mapped_legal(self, player: int) -> list[int]:
        """Our legal actions at ``player``'s decision that OpenSpiel allows too: what our bot
        chooses among. The two sets are checked first: OpenSpiel may also allow discarding
        the card just taken, and may refuse a knock our engine allows (its deadwood of 11
        cards is a shortcut: module docstring); any other difference raises ``MirrorError``."""
        state, phase = self.state, _os_phase(self.state)
        os_legal = set(state.legal_actions())
        m = self.mirror
        extra: set[int] = set()  # OpenSpiel's actions our engine may lack
        refusable: set[int] = set()  # ours OpenSpiel may lack
        if phase == "FIRST_UPCARD" and os_legal != {OS_DRAW_STOCK}:
            m = self.provisional(player)
            ours = m.state.legal_actions()
            mapped = {a: OS_DRAW_UPCARD if a == TAKE_DISCARD else OS_PASS for a in ours}
        else:
            if m is None or m.over or m.state.current_player != m.seat[player]:
                raise MirrorError(f"no mirror of player {player}'s decision in phase {phase}\n"
                                  + _describe(state, m))
            ours = m.state.legal_actions()
            taken = m.state.taken
            if phase == "DRAW":
                mapped = {a: OS_DRAW_UPCARD if a == TAKE_DISCARD else OS_DRAW_STOCK for a in ours}
            elif phase == "DISCARD":
                mapped = {a: OS_KNOCK if is_knock(a) else OS_CARD[action_card(a)] for a in ours}
                extra = set() if taken is None else {OS_CARD[taken], OS_KNOCK}
                refusable = {OS_KNOCK}
            elif phase == "KNOCK":  # the knocker's discard
                mapped = {a: OS_CARD[action_card(a)] for a in ours if is_knock(a)}
                extra = set() if taken is None else {OS_CARD[taken]}
            else:
                raise MirrorError(f"phase {phase} has no mirror\n" + _describe(state, m))
        to_os = set(mapped.values())
        if not to_os - os_legal <= refusable or not os_legal - to_os <= extra:
            raise MirrorError(
                f"legal actions differ for player {player} in phase {phase}: OpenSpiel "
                f"{sorted(os_legal)}, ours mapped {sorted(to_os)} (ours {ours})\n"
                + _describe(state, m))
        return [a for a, os_action in mapped.items() if os_action in os_legal]

    def _mirror_move(self, player: int, action: int) -> None:
        """Replay OpenSpiel's ``action`` by ``player`` (about to be applied) in the mirror."""
        phase = _os_phase(self.state)
        if phase == "FIRST_UPCARD":
            if action == OS_PASS:
                return
            self.mirror = Mirror(self.deal, player)
            self._apply(TAKE_DISCARD if action == OS_DRAW_UPCARD else DRAW_STOCK)
        elif phase == "DRAW":
            self._apply(TAKE_DISCARD if action == OS_DRAW_UPCARD else DRAW_STOCK)
        elif phase == "DISCARD":
            if action == OS_KNOCK:
                self.knock_pending = True
                return
            self._apply(DISCARD_OFFSET + OUR_CARD[action])
        elif phase == "KNOCK" and self.knock_pending:
            self.knock_pending = False
            m = self.mirror
            if m is None or m.over:
                return  # a knock at the wall: our engine's hand ended dead before it
            card = OUR_CARD[action]
            if card == m.state.taken:
                self.taken_discards += 1
                self.mirror_stopped = f"player {player} knocked discarding the card it took"
                return  # our rules forbid it; the hand ends here anyway
            self._apply(KNOCK_OFFSET + card)
        elif phase == "WALL" and action == OS_KNOCK:
            self.wall_knocks += 1
            self.knock_pending = True

    def _apply(self, action: int) -> None:
        m = self.mirror
        if m is None or m.over:
            raise MirrorError(f"no mirror to apply {action} to\n" + _describe(self.state, m))
        try:
            m.apply(action)
        except IllegalActionError as err:
            raise MirrorError(f"{err}\n" + _describe(self.state, m)) from None

    def _check_hands(self) -> None:
        m = self.mirror
        if m is None or m.over:
            return
        for p in range(2):
            os_hand = sorted(OUR_CARD[c] for c in self.state.hands()[p])
            if os_hand != m.state.hands[m.seat[p]]:
                raise MirrorError(f"player {p}'s hand differs: OpenSpiel "
                                  f"{cards.names(os_hand)}, ours "
                                  f"{cards.names(m.state.hands[m.seat[p]])}\n"
                                  + _describe(self.state, m))

    # --------------------------------------------------------------- play
    def play(self, players: Sequence[Player]) -> None:
        state = self.state
        while not state.is_terminal():
            if state.is_chance_node():
                card = self.deal.order[self.chance]
                self.chance += 1
                state.apply_action(card)
                continue
            player = state.current_player()
            if self.check and self.mirrored(player):
                self._check_hands()
                self.mapped_legal(player)
                self.checked += 1
            action = players[player].act(self, player)
            if action not in state.legal_actions():
                raise MirrorError(f"player {player} ({players[player].name}) chose illegal "
                                  f"action {action}\n" + _describe(state, self.mirror))
            self._mirror_move(player, action)
            state.apply_action(action)

    def returns(self) -> list[float]:
        return list(self.state.returns())


class Player:
    """A seat at an OpenSpiel table: ``act`` returns an OpenSpiel action."""

    name = "player"

    def start_hand(self, player: int, seed: int) -> None:
        """A new hand, this player being OpenSpiel's ``player``; ``seed`` for its randomness."""

    def act(self, table: Table, player: int) -> int:
        raise NotImplementedError


class SimplePlayer(Player):
    """OpenSpiel's ``SimpleGinRummyBot`` (``pyspiel.make_simple_gin_rummy_bot``)."""

    name = SIMPLE

    def __init__(self, params) -> None:
        self.bots = [pyspiel.make_simple_gin_rummy_bot(params, p) for p in range(2)]

    def start_hand(self, player: int, seed: int = 0) -> None:
        self.bots[player].restart()

    def act(self, table: Table, player: int) -> int:
        return int(self.bots[player].step(table.state))


class OurPlayer(Player):
    """One of our bots (any registry spec): it chooses in our engine's mirror of the hand;
    the phases our engine has not (melds, layoffs, the wall) follow the module docstring."""

    def __init__(self, bot: Bot, params) -> None:
        self.bot = bot
        self.name = bot.name
        self.wall = SimplePlayer(params)  # OpenSpiel's default for the wall phase
        self.queue: list[int] = []
        self.at_wall = False
        self.layoffs: list[int] | None = None  # planned, OpenSpiel ids

    def start_hand(self, player: int, seed: int = 0) -> None:
        self.bot.reset(seed)  # a hand's randomness replays in its duplicate
        self.wall.start_hand(player)
        self.queue, self.at_wall, self.layoffs = [], False, None

    def _ask(self, table: Table, mirror: Mirror, player: int) -> int:
        """Our bot's action in the mirror, among the actions both engines allow."""
        legal = table.mapped_legal(player)
        if len(legal) < len(mirror.state.legal_actions()):
            table.refused_knocks += 1
        action = int(self.bot.act(mirror.view(player, table.scores, table.hand_number), legal))
        if action not in legal:
            raise MirrorError(f"{self.name} chose {action}, not among the legal {legal}\n"
                              + _describe(table.state, mirror))
        return action

    def act(self, table: Table, player: int) -> int:
        state, phase = table.state, _os_phase(table.state)
        if self.at_wall or phase == "WALL":
            self.at_wall = True
            return self.wall.act(table, player)
        if self.queue:
            return self.queue.pop(0)
        if phase == "FIRST_UPCARD":
            if state.legal_actions() == [OS_DRAW_STOCK]:
                return OS_DRAW_STOCK  # both passed: the only move
            action = self._ask(table, table.provisional(player), player)
            return OS_DRAW_UPCARD if action == TAKE_DISCARD else OS_PASS
        if phase in ("DRAW", "DISCARD"):
            table._check_hands()
            if table.mirror is None:
                raise MirrorError(f"no mirror in phase {phase}\n" + _describe(state, None))
            action = self._ask(table, table.mirror, player)
            if phase == "DRAW":
                return OS_DRAW_UPCARD if action == TAKE_DISCARD else OS_DRAW_STOCK
            if not is_knock(action):
                return OS_CARD[action_card(action)]
            self.queue = [OS_CARD[action_card(action)]]  # then the melds, once settled
            return OS_KNOCK
        if phase == "KNOCK":  # our knock is settled in the mirror: lay its melds, pass
            m = table.mirror
            if m is None or not m.over:
                raise MirrorError("our knock was not settled in the mirror\n"
                                  + _describe(state, m))
            self.queue = [*meld_actions(m.state.results[0].knocker_melds), OS_PASS]
            return self.queue.pop(0)
        if phase == "LAYOFF":
            return self._defend(table, player)
        raise MirrorError(f"{self.name} asked in phase {phase}\n" + _describe(state, table.mirror))

    def _defend(self, table: Table, player: int) -> int:
        """Lay off what our meld solver finds best onto the knocker's laid melds, then meld
        the rest at best."""
        state = table.state
        legal = state.legal_actions()
        hand = [OUR_CARD[c] for c in state.hands()[player]]
        if not state.finished_layoffs():
            if self.layoffs is None:
                knocker_melds = [mask_of(m) for m in _laid(state, 1 - player)]
                _, laid = layoff_deadwood(mask_of(hand), knocker_melds)
                self.layoffs = [OS_CARD[c] for c in cards_of(laid)]
            for card in self.layoffs:
                if card in legal:  # a run extended card by card: the next legal one
                    self.layoffs.remove(card)
                    return card
            if self.layoffs:
                raise MirrorError(f"planned layoffs {self.layoffs} are not legal: {legal}\n"
                                  + _describe(state, table.mirror))
            return OS_PASS
        self.queue = [*meld_actions([cards_of(m) for m in best_split(mask_of(hand))]), OS_PASS]
        return self.queue.pop(0)


def _laid(state, player: int) -> list[frozenset[int]]:
    """The melds ``player`` laid, our card ids."""
    return [os_melds_by_id()[m] for m in state.layed_melds()[player]]


# ---------------------------------------------------------------- matches
@dataclass
class HandRecord:
    match: int  # the deal sequence
    side: int  # 0: player A is OpenSpiel's player 0 in the match's even hands; 1: swapped
    hand: int  # 0-based within the match
    first: str  # "A" or "B": who was OpenSpiel's player 0
    returns: tuple[float, float]  # (A, B)
    mirror: tuple[int, int] | None  # our engine's score of the hand (A, B), if it ended there
    wall_knock: bool = False
    taken_discard: bool = False
    refused_knocks: int = 0  # A's decisions where OpenSpiel refused a knock ours allowed


@dataclass
class MatchRecord:
    match: int
    side: int
    scores: tuple[int, int]  # (A, B)
    hands: int
    winner: str | None  # "A", "B", or None (unfinished at max_hands)
    records: list[HandRecord] = field(default_factory=list)


def deal_for(seed: int, match: int, hand: int) -> Deal:
    return Deal.random(np.random.default_rng([seed, match, hand]))


def play_match(game, a: Player, b: Player, seed: int, match: int, side: int,
               target: int = 100, max_hands: int = 100, check: bool = False) -> MatchRecord:
    """Hands of deal sequence ``match`` until a total reaches ``target``: each hand's winner
    scores its OpenSpiel return. ``side`` 0 seats A as player 0 in even hands, 1 in odd."""
    scores = [0, 0]  # (A, B)
    record = MatchRecord(match, side, (0, 0), 0, None)
    for k in range(max_hands):
        a_first = (k + side) % 2 == 0
        players = (a, b) if a_first else (b, a)
        for p, pl in enumerate(players):
            pl.start_hand(p, seed * 1_000_003 + match * 1009 + k)
        by_player = scores if a_first else scores[::-1]
        table = Table(game, deal_for(seed, match, k), by_player, k + 1, check=check)
        table.play(players)
        ret = table.returns()
        mirrored = None
        if table.mirror is not None and table.mirror.over and table.mirror_stopped is None:
            mirrored = table.mirror.returns()
        ab = (ret[0], ret[1]) if a_first else (ret[1], ret[0])
        mab = None if mirrored is None else \
            ((mirrored[0], mirrored[1]) if a_first else (mirrored[1], mirrored[0]))
        record.records.append(HandRecord(match, side, k, "A" if a_first else "B", ab, mab,
                                         table.wall_knocks > 0, table.taken_discards > 0,
                                         table.refused_knocks))
        for i in range(2):
            scores[i] += max(0, int(ab[i]))
        if max(scores) >= target:
            record.winner = "A" if scores[0] > scores[1] else "B"
            break
    record.scores, record.hands = (scores[0], scores[1]), len(record.records)
    return record


def make_player(spec: str, params) -> Player:
    """``openspiel/simple`` or any spec our registry makes (``cardrl.agents.make``)."""
    if spec == SIMPLE:
        return SimplePlayer(params)
    from cardrl import agents

    return OurPlayer(agents.check_bot(spec, GAME, "bot"), params)


@dataclass
class Summary:
    bot: str
    opponent: str
    deals: int
    matches: int
    hands: int
    hand_win: Estimate  # hands won (the return > 0), per deal of a hand: mean of its seats
    hand_loss: Estimate
    points: Estimate  # A's return per hand
    match_win: Estimate  # per deal sequence, its two matches: 1 won, 0 lost, 0.5 unfinished
    unfinished: int
    wall_knocks: int
    taken_discards: int
    refused_knocks: int
    seconds: float

    def to_dict(self) -> dict:
        return {k: v.to_dict() if isinstance(v, Estimate) else v
                for k, v in ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))}


def summarize(bot: str, opponent: str, matches: Sequence[MatchRecord], seconds: float
              ) -> Summary:
    """Duplicate statistics: each hand deal (sequence, hand) and each deal sequence is
    averaged over its seatings first; 95% intervals over those means (``eval.stats``)."""
    by_deal: dict[tuple[int, int], list[HandRecord]] = {}
    by_seq: dict[int, list[float]] = {}
    for m in matches:
        for r in m.records:
            by_deal.setdefault((r.match, r.hand), []).append(r)
        by_seq.setdefault(m.match, []).append(
            0.5 if m.winner is None else float(m.winner == "A"))
    hands = [r for rs in by_deal.values() for r in rs]

    def per_deal(f: Callable[[HandRecord], float]) -> Estimate:
        return mean_ci([sum(map(f, rs)) / len(rs) for rs in by_deal.values()])

    return Summary(
        bot, opponent, len(by_seq), len(matches), len(hands),
        per_deal(lambda r: float(r.returns[0] > 0)), per_deal(lambda r: float(r.returns[0] < 0)),
        per_deal(lambda r: r.returns[0]),
        mean_ci([sum(v) / len(v) for v in by_seq.values()]),
        sum(m.winner is None for m in matches), sum(r.wall_knock for r in hands),
        sum(r.taken_discard for r in hands), sum(r.refused_knocks for r in hands), seconds)


def run(bot: str, opponent: str = SIMPLE, deals: int = 10, seed: int = 0, target: int = 100,
        max_hands: int = 100, check: bool = False) -> tuple[Summary, list[MatchRecord]]:
    """``deals`` deal sequences, each a duplicate pair of matches (seats swapped)."""
    game = pyspiel.load_game(GAME)
    params = game.get_parameters()
    a, b = make_player(bot, params), make_player(opponent, params)
    start = time.perf_counter()
    matches = [play_match(game, a, b, seed, i, side, target, max_hands, check)
               for i in range(deals) for side in (0, 1)]
    return summarize(bot, opponent, matches, time.perf_counter() - start), matches


def _pct(e: Estimate) -> str:
    return f"{100 * e.mean:.1f} ± {100 * e.half_width:.1f}%"


def summary_line(s: Summary) -> str:
    return (f"{s.bot} vs {s.opponent}: {s.deals} deal sequences, {s.matches} matches, "
            f"{s.hands} hands | hands won {_pct(s.hand_win)}, lost {_pct(s.hand_loss)}, "
            f"points/hand {s.points.mean:+.2f} ± {s.points.half_width:.2f} | matches to 100 "
            f"won {_pct(s.match_win)} ({s.unfinished} unfinished) | wall knocks "
            f"{s.wall_knocks}, taken-card discards {s.taken_discards}, knocks refused "
            f"{s.refused_knocks} | {s.seconds:.0f} s")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m cardrl.agents.gin_rummy.openspiel_match",
        description="Our Gin Rummy bot inside OpenSpiel's gin_rummy against its simple bot: "
                    "duplicate matches to 100 points chained from OpenSpiel hands.")
    ap.add_argument("--bot", required=True, help=f"a registry spec, or {SIMPLE}")
    ap.add_argument("--opponent", default=SIMPLE, help=f"default {SIMPLE}")
    ap.add_argument("--deals", type=int, default=10,
                    help="deal sequences, each played as two matches with the seats swapped")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", type=int, default=100)
    ap.add_argument("--max-hands", type=int, default=100, help="per match (then unfinished)")
    ap.add_argument("--check", action="store_true",
                    help="compare the legal actions of both engines at every decision")
    ap.add_argument("--json", help="write the summary (and every hand) here")
    args = ap.parse_args(argv)
    summary, matches = run(args.bot, args.opponent, args.deals, args.seed, args.target,
                           args.max_hands, args.check)
    print(summary_line(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary.to_dict(), "command": sys.argv,
                       "cpu": platform.processor() or platform.machine(),
                       "load": os.getloadavg(),
                       "matches": [dataclasses.asdict(m) for m in matches]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
