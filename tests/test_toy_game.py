"""Adding a game (docs/design.md, "Adding a game"), followed on a toy game declared here alone.

High Card: six cards ranked 0..5, three to each of two players; the trick's leader
plays a card, the other answers, the higher card takes the trick (a point) and
leads the next. A hand is three tricks; the game ends when a total reaches the
target (or at the hand cap). The test gives the game a rules dataclass with its
editable fields, an engine state and view, two encoders, an action table and a
world sampler, and nothing else: the generic code then has to give it an AEC env
that passes PettingZoo's tests and the suite's own, the batched API, bots (random,
its rule bot, its search bot), a duplicate tournament and a training run.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.envs.encoding import KINDS, Encoder, describe, offsets, unit_bounds
from cardrl.envs.games import Game, game_names, get_game, registered
from cardrl.envs.rules_base import GameRules, editable, editable_fields, lookup
from cardrl.envs.states import clone_state, generator
from cardrl.eval.config import TournamentConfig
from cardrl.eval.tournament import run_tournament
from cardrl.train.config import TrainConfig
from cardrl.train.ppo import Trainer
from tests import test_batched as batched_suite
from tests import test_envs as env_suite

NAME = "toy_highcard"
RANKS = 6
HAND = RANKS // 2


class ToyError(ValueError):
    """A bad High Card rules field or deal."""


@dataclass(frozen=True)
class ToyRules(GameRules):
    title = "High Card"
    error = ToyError

    preset: str = "custom"
    target: int = editable(2, low=1, high=9)  # the game ends when a total reaches it
    max_hands: int | None = editable(None, low=1, high=100, none=True)

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise ToyError(f"target must be an int >= 1, got {self.target!r}")


PRESETS = {"short": ToyRules("short", target=1), "long": ToyRules("long", target=3)}


def get_rules(preset="short", **changes) -> ToyRules:
    return lookup(ToyRules, PRESETS, preset, changes)


@dataclass(frozen=True)
class HandResult:
    points: tuple[int, int]
    totals: tuple[int, int]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ToyView:
    seat: int
    held: tuple[int, ...]
    table: int | None  # the card led to the trick, if any
    played: tuple[int, ...]  # cards of finished tricks this hand
    points: tuple[int, int]  # tricks taken this hand
    totals: tuple[int, int]
    current_player: int | None
    rules: ToyRules

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "game": NAME}

    @classmethod
    def from_dict(cls, d: dict) -> ToyView:
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k != "game"}
        return cls(**{**fields, "rules": ToyRules(**d["rules"])})


class ToyState:
    def __init__(self, rules: ToyRules, rng=None, deal=None) -> None:
        self.rules, self.rng = rules, generator(rng)
        self.scores, self.results = [0, 0], []
        self._deal(deal)

    def _deal(self, deal) -> None:
        if deal is None:
            order = [int(c) for c in self.rng.permutation(RANKS)]
            deal = [order[:HAND], order[HAND:]]
        elif not (isinstance(deal, list | tuple) and len(deal) == 2
                  and all(isinstance(h, list | tuple) and all(type(c) is int for c in h)
                          for h in deal)
                  and sorted(c for h in deal for c in h) == list(range(RANKS))
                  and len(deal[0]) == HAND):
            raise ToyError(f"a deal is two hands of three of the cards 0..5, got {deal!r}")
        self.hands = [sorted(deal[0]), sorted(deal[1])]
        self.played, self.table, self.points = [], None, [0, 0]
        self.leader = self.current_player = len(self.results) % 2

    @property
    def is_over(self) -> bool:
        return self.current_player is None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s in (0, 1) if self.scores[s] == max(self.scores))

    def legal_actions(self) -> list[int]:
        return [] if self.is_over else list(self.hands[self.current_player])

    def apply(self, action: int) -> None:
        seat = self.current_player
        if type(action) is not int or action not in self.legal_actions():
            raise ToyError(f"illegal action {action!r}; legal: {self.legal_actions()}")
        self.hands[seat].remove(action)
        if self.table is None:
            self.table, self.current_player = action, 1 - seat
            return
        winner = seat if action > self.table else 1 - seat
        self.points[winner] += 1
        self.played += [self.table, action]
        self.table, self.current_player = None, winner
        if len(self.played) == RANKS:
            self.scores = [a + b for a, b in zip(self.scores, self.points, strict=True)]
            self.results.append(HandResult(tuple(self.points), tuple(self.scores)))
            capped = self.rules.max_hands is not None and len(self.results) >= self.rules.max_hands
            if max(self.scores) >= self.rules.target or capped:
                self.current_player = None
            else:
                self._deal(None)

    def view(self, seat: int) -> ToyView:
        return ToyView(seat, tuple(self.hands[seat]), self.table, tuple(self.played),
                       tuple(self.points), tuple(self.scores), self.current_player, self.rules)

    def clone(self) -> ToyState:
        return clone_state(self, ("scores", "results", "played", "points"), ("hands",))


def sample_worlds(view: ToyView, n: int, rng) -> list[ToyState]:
    """Every card a seat has not seen is in the other hand: one world, ``n`` times."""
    state = object.__new__(ToyState)
    state.rules, state.rng = view.rules, generator(rng)
    seen = {*view.held, *view.played, *([view.table] if view.table is not None else [])}
    other = sorted(set(range(RANKS)) - seen)
    state.hands = [list(view.held), other] if view.seat == 0 else [other, list(view.held)]
    state.played, state.table, state.scores = list(view.played), view.table, list(view.totals)
    state.current_player = view.current_player
    state.points, state.results = list(view.points), []
    return [state.clone() for _ in range(n)]


LAYOUT = (("held", RANKS), ("table", RANKS), ("played", RANKS))
FEATURE_LAYOUT = (*LAYOUT, ("beats the table", RANKS))


def _encoder(kind: str, layout) -> Encoder:
    where, size = offsets(layout)

    def encode(view: ToyView, out: np.ndarray | None = None) -> np.ndarray:
        x = np.zeros(size, np.float32) if out is None else out
        x[[where["held"] + c for c in view.held]] = 1.0
        x[[where["played"] + c for c in view.played]] = 1.0
        if view.table is not None:
            x[where["table"] + view.table] = 1.0
            if "beats the table" in where:
                x[[where["beats the table"] + c for c in view.held if c > view.table]] = 1.0
        return x

    return Encoder(kind, 1, lambda n: size, encode, lambda n: unit_bounds(size),
                   lambda n, i: describe(layout, where, i))


GAME = Game(
    name=NAME,
    env_name=f"{NAME}_v0",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    state=ToyState,
    view=ToyView,
    num_players=lambda rules: 2,
    num_actions=RANKS,
    action_name=lambda a: f"play {a}",
    render=repr,
    encoders={"infostate": _encoder("infostate", LAYOUT),
              "features": _encoder("features", FEATURE_LAYOUT)},
    score_scale=lambda rules: float(HAND),
    strongest=(f"{NAME}/cheapest-win",),
    sample_worlds=sample_worlds,
)


class CheapestWin(Bot):
    """Take the trick as cheaply as possible, else throw the lowest card."""

    game = NAME

    def act(self, view: ToyView, legal_actions) -> int:
        winning = [c for c in legal_actions if view.table is not None and c > view.table]
        return min(winning or legal_actions)


@pytest.fixture
def toy():
    """The toy game and its rule bot, known for one test."""
    with registered(GAME), agents.registered(
            {f"{NAME}/cheapest-win": (CheapestWin, "cheapest winning card")}):
        yield GAME


def test_a_registered_game_is_known_everywhere_for_the_block_only(toy):
    assert NAME in game_names() and get_game(NAME) is GAME
    assert set(agents.names(NAME)) == {"random", f"{NAME}/cheapest-win", f"{NAME}/search"}
    assert list(editable_fields(get_rules())) == ["target", "max_hands"]
    with pytest.raises(ValueError, match="already known"), registered(GAME):
        pass


def test_it_is_forgotten_after_the_block():
    with registered(GAME):
        pass
    assert NAME not in game_names()
    with pytest.raises(ValueError, match=f"unknown bot '{NAME}/cheapest-win'"):
        agents.make(f"{NAME}/cheapest-win")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("preset", PRESETS)
def test_the_env_passes_pettingzoo_and_the_suites_own_tests(toy, preset, kind):
    env_suite.test_pettingzoo_api_and_seed_tests(NAME, preset, {}, kind)
    env_suite.test_observer_is_the_encoder_at_every_step_and_masks_are_the_legal_set(
        NAME, "long", {"max_hands": 3}, kind)  # episodes long enough for its 60 checks
    env_suite.test_describe_names_every_index_and_bounds_match_the_size(NAME, kind)
    assert toy.env().metadata["name"] == f"{NAME}_v0"


@pytest.mark.parametrize("bad", [True, 1.5, None, 9])
def test_illegal_actions_and_bad_options_get_the_suites_answers(toy, bad):
    env_suite.test_penalty_mode_never_raises_it_penalises_and_plays_a_legal_move(NAME, bad)
    env_suite.test_reset_refuses_options_it_does_not_know_and_keeps_the_game(NAME)
    if bad != 9:
        env_suite.test_what_is_not_an_action_id_is_refused_and_changes_nothing(NAME, bad)


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_the_batched_api_equals_the_env(toy, episode):
    batched_suite.test_batched_games_equal_the_aec_env_on_the_same_seeds(
        NAME, "long", {"max_hands": 4}, "features", episode)


def test_its_bots_play_a_duplicate_tournament_and_the_rule_bot_beats_random(toy, tmp_path):
    bots = (f"{NAME}/cheapest-win", "random")
    cfg = TournamentConfig(game=NAME, bots=bots, preset="long", max_hands=5)
    run = run_tournament(cfg, deals=12, out=tmp_path / "out")
    assert run.summary["games"] == 24  # every deal in both seat orders
    score = {b["bot"]: b["score"]["mean"] for b in run.summary["bots"]}
    assert score[bots[0]] > score["random"]
    searched = run_tournament(dataclasses.replace(cfg, bots=(f"{NAME}/search:worlds=2", "random")),
                              deals=2, out=tmp_path / "search")
    assert searched.summary["games"] == 4


def test_a_tiny_training_run_exports_a_bot_that_plays_it(toy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = TrainConfig(game=NAME, preset="long", steps=256, seed=1, opponents="random@1",
                      net=(8,), n_games=4, n_steps=32, batch_size=64, n_epochs=1, max_hands=4,
                      eval_every=0, checkpoint_every=256, snapshot_every=256,
                      torch_threads=1, name="toy")
    result = Trainer(cfg, progress=False, quiet=True).run()
    assert result.steps >= 256 and result.onnx is not None
    card = json.loads(result.onnx.with_suffix(".json").read_text())
    assert card["game"] == NAME
    bot = agents.make(str(result.onnx))
    state = GAME.new_state(get_rules("long"), 3)
    while not state.is_over:
        state.apply(bot.act(state.view(state.current_player), state.legal_actions())
                    if state.current_player == 0 else state.legal_actions()[0])
    assert len(state.results) >= 1
