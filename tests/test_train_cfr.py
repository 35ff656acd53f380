"""CFR+ self-play on the small Blind Auction decks (``cardrl.train.cfr``): the average policy's
exact exploitability falls, OpenSpiel's CFR+ agrees, the trainer writes its measures and
exports an average network whose probabilities are a mix over the legal actions only."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from cardrl import agents
from cardrl.envs.blind_auction import best_response
from cardrl.envs.games import get_game
from cardrl.train import ship
from cardrl.train.cfr import CFR, CFRConfig, CFRTrainer
from cardrl.train.exploit import EXPLOIT

UNIFORM_CARRY_4 = 2.479166666666666  # the uniform bidder's exploitability, 4 cards, carry


def _rules(cards: int, tie_rule: str):
    return get_game("blind_auction").get_rules("2p", cards_per_suit=cards, tie_rule=tie_rule)


def test_the_average_policy_falls_far_below_the_uniform_bidder_in_a_few_iterations():
    cfr = CFR(_rules(4, "carry"))
    assert cfr.exploitability()["exploitability"] == pytest.approx(UNIFORM_CARRY_4)  # no iteration
    cfr.iterate(30)
    first = cfr.exploitability()["exploitability"]
    cfr.iterate(30)
    second = cfr.exploitability()["exploitability"]
    assert second < first < 0.25 < UNIFORM_CARRY_4  # (about 0.18 and 0.06)
    obs, masks, probs, weights = cfr.samples()
    assert np.allclose(probs.sum(axis=1), 1.0) and not probs[~masks].any()
    assert (weights >= 0).all() and weights.max() > 0


def test_our_cfr_plus_is_openspiels_on_the_three_card_deck():
    """The same algorithm (alternating updates, linear averaging) on the same game: the
    average policies' exploitability agrees, and OpenSpiel's best response to our average
    gains what our hook says."""
    pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import cfr as os_cfr
    from open_spiel.python.algorithms import exploitability

    from cardrl.agents import openspiel as ops

    rules = _rules(3, "carry")
    game = ops.load("blind_auction", cards_per_suit=3, tie_rule="carry", turn_based=True)
    ours = CFR(rules)
    ours.iterate(3)
    solver = os_cfr.CFRPlusSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    theirs = exploitability.nash_conv(game, solver.average_policy()) * rules.prize_total / 2
    mine = ours.exploitability()["exploitability"]
    assert mine == pytest.approx(theirs, abs=1e-9) and mine > 0.1
    table = ours.table()
    tab = policy_lib.TabularPolicy(game)
    for index, state in enumerate(tab.states):
        p = table[np.asarray(state.information_state_tensor(state.current_player()),
                             np.float32).tobytes()]
        tab.action_probability_array[index] = p
    assert exploitability.nash_conv(game, tab) * rules.prize_total / 2 == pytest.approx(
        mine, abs=1e-9)


def test_the_trainer_measures_fits_and_exports_a_mix_over_legal_actions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = CFRConfig(preset="2p", rule_changes={"cards_per_suit": 4, "tie_rule": "carry"},
                    steps=40, exploit_every=20, fit_epochs=30, net=(32,), name="cfr-smoke")
    trainer = CFRTrainer(cfg, progress=False, quiet=True)
    result = trainer.run()
    assert result.steps == 40 and not result.interrupted and result.onnx is not None
    lines = [json.loads(x) for x in (tmp_path / "runs/cfr-smoke" / EXPLOIT).read_text()
             .splitlines()]
    assert [x["step"] for x in lines] == [20, 40, 40]
    average = [x["average"]["exploitability"] for x in lines[:2]]
    assert average[1] < average[0] < UNIFORM_CARRY_4 / 4
    network = lines[2]["network"]["exploitability"]
    assert network < UNIFORM_CARRY_4 / 2  # a 32-unit network after 30 epochs: far from 2.48
    # the exported network, as a bot loads it: a mix over the legal cards only, measured the same
    bot = agents.load(str(result.onnx))
    assert bot.card["sample"] is True and bot.card["training"]["algo"] == "cfr"
    obs, masks, _, _ = trainer.cfr.samples()
    logits = bot.session.run(None, {"observation": obs, "action_mask": masks.astype(np.float32)})[0]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    assert np.allclose(p.sum(axis=1), 1.0) and p[~masks].max() < 1e-12
    assert (p[masks] > 0).all()  # a mix: every legal card has some chance

    def onnx_probs(o, m):
        z = bot.session.run(None, {"observation": o, "action_mask": m.astype(np.float32)})[0]
        q = np.exp(z - z.max(axis=1, keepdims=True)) * m
        return q / q.sum(axis=1, keepdims=True)

    measured = best_response.exploitability(trainer.cfr.rules, trainer.cfr.encoder, [onnx_probs])
    assert measured["exploitability"] == pytest.approx(network, abs=1e-4)
    # a resumed finished run changes nothing and exports again
    again = CFRTrainer(CFRConfig.load_run("cfr-smoke"), resume=True, progress=False, quiet=True)
    assert again.steps == 40 and again.net is not None
    assert again.run().steps == 40
    # more iterations: the average goes on from the checkpoint and the network is fitted again
    more = CFRTrainer(replace(CFRConfig.load_run("cfr-smoke"), steps=60), resume=True,
                      progress=False, quiet=True)
    assert more.run().steps == 60
    lines = [json.loads(x) for x in (tmp_path / "runs/cfr-smoke" / EXPLOIT).read_text()
             .splitlines()]
    assert [x["step"] for x in lines] == [20, 40, 40, 60, 60] and "network" in lines[-1]
    assert lines[3]["average"]["exploitability"] < average[1]


def test_the_recipe_is_a_cfr_run_on_the_small_deck():
    recipe = ship.RECIPES["blind_auction-2p-cfr4"]
    (stage,) = recipe.stages
    assert isinstance(stage, CFRConfig) and recipe.sample and not recipe.ships
    assert stage.rule_changes == {"cards_per_suit": 4, "tie_rule": "carry"}
    assert ship.trainer_of(stage) is CFRTrainer


def test_bad_knobs_are_refused_by_name():
    with pytest.raises(ValueError, match="cards_per_suit"):
        CFRConfig(preset="2p", rule_changes={"cards_per_suit": 6}).validate()
    with pytest.raises(ValueError, match="variant"):
        CFRConfig(preset="2p", rule_changes={"cards_per_suit": 4}, variant="x").validate()
    with pytest.raises(ValueError, match="2 players"):
        CFRConfig(preset="3p", rule_changes={"cards_per_suit": 4}).validate()
