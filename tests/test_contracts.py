"""Every declared game, at run time, against the contracts generic code relies on
(``cardrl.envs.contracts``; ``make typecheck`` holds the annotations to them)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.learned import shipped_bots
from cardrl.envs import contracts
from cardrl.envs.games import game_module, game_names, get_game


@pytest.mark.parametrize("game", game_names())
def test_states_views_and_observers_keep_the_contracts(game):
    g = get_game(game)
    rules = g.make_rules()
    state = g.new_state(rules, 7)
    assert isinstance(state, contracts.EngineState)
    n = g.num_players(rules)
    observers = {kind: enc.make_observer(n) for kind, enc in g.encoders.items()}
    for obs in observers.values():
        assert isinstance(obs, contracts.Observer)
        obs.reset(state)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if state.is_over:
            break
        seat = state.current_player
        view = state.view(seat)
        assert isinstance(view, contracts.PlayerView) and view.seat == seat
        again = type(view).from_dict(json.loads(json.dumps(view.to_dict())))
        assert again == view  # a view survives JSON, the format a bot in any language gets
        for kind, obs in observers.items():
            want = g.encoders[kind].encode(view)
            assert np.array_equal(obs.observation(state, seat), want), kind
            if isinstance(obs, contracts.FastObserver):  # both fast paths, or neither used
                assert np.array_equal(obs.observe(state, seat)["observation"], want)
        action = int(rng.choice(state.legal_actions()))
        before = state.clone()
        state.apply(action)
        assert before.legal_actions() != [] and before.current_player == seat
        for obs in observers.values():
            obs.after_apply(state, seat, action)


@pytest.mark.parametrize("game", game_names())
def test_bots_and_compiled_cores_keep_the_contracts(game):
    g = get_game(game)
    for spec in [*g.strongest, "random", *shipped_bots(game)]:
        bot = agents.make(spec if not spec.startswith("cardrl/") else f"{spec}:worlds=0")
        assert isinstance(bot, contracts.BotLike), spec
    core = getattr(game_module("cardrl.envs", game, "compiled"), "CORE", None)
    if core is not None:
        assert isinstance(core, contracts.CompiledCore)
