"""The learned knock (train.plugins.gin_rummy): the game-win table, the labels, the switch that puts
the head's decision into the policy's logits, and its export to ONNX."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl import agents
from cardrl.envs.gin_rummy.actions import KNOCK_OFFSET, NUM_ACTIONS
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.envs.gin_rummy.features import KNOCK_FEATURES, encode, layout
from cardrl.envs.gin_rummy.features import VERSION as FEATURES_VERSION
from cardrl.envs.gin_rummy.rules import get_rules
from cardrl.train import plugins
from cardrl.train.config import TrainConfig
from cardrl.train.numpy_policy import MASKED
from cardrl.train.plugins import gin_rummy
from cardrl.train.plugins.gin_rummy import knock as kh
from cardrl.train.plugins.gin_rummy.__main__ import main as knock_main

LAY = layout(2)


def simulated_win_chance(outcomes, a: int, b: int, first: int, target: int, rng,
                         games: int = 20_000) -> float:
    """Monte Carlo of the score race ``win_table`` solves: each hand's net points for the
    non-dealer drawn from ``outcomes``; the deal passes every hand."""
    wins = 0
    for _ in range(games):
        me, other, i_first = a, b, first
        while True:
            v = int(rng.choice(outcomes))
            mine = v if i_first else -v
            if mine > 0:
                me += mine
            elif mine < 0:
                other -= mine
            if me >= target or other >= target:
                wins += me >= target
                break
            i_first = 1 - i_first
    return wins / games


def test_win_table_solves_the_score_race():
    outcomes = np.array([12, 12, 25, -8, -30, 0, 5, -15])
    table = kh.win_table(outcomes, 40)
    # the two players' chances are complements: the one who plays first faces a dealer
    for a, b in [(0, 0), (10, 35), (39, 0), (20, 25)]:
        assert table[a, b, 1] + table[b, a, 0] == pytest.approx(1.0, abs=1e-9)
    rng = np.random.default_rng(0)
    for a, b, first in [(0, 0, 1), (30, 10, 0), (5, 35, 1)]:
        assert table[a, b, first] == pytest.approx(
            simulated_win_chance(outcomes, a, b, first, 40, rng), abs=0.015)


def test_win_table_of_a_certain_race():
    # the non-dealer always scores 10: from 0-0 the first player scores at 10, 20 (wins)
    table = kh.win_table(np.array([10]), 20)
    assert table[0, 0, 1] == 1.0 and table[0, 0, 0] == 0.0
    assert table[10, 10, 1] == 1.0 and table[0, 15, 0] == 0.0  # the other reaches 25 first


def test_game_value_reads_the_table_between_hands_and_the_winners_at_the_end():
    state = GinRummyState(get_rules("standard"), 0)
    table = np.random.default_rng(0).random((100, 100, 2))
    state.scores = [30, 55]
    state.dealer = 1  # seat 0 plays first in the next hand
    assert kh.game_value(state, 0, table) == table[30, 55, 1]
    assert kh.game_value(state, 1, table) == table[55, 30, 0]
    state.phase, state.winners = "over", (1,)
    assert kh.game_value(state, 1, table) == 1.0 and kh.game_value(state, 0, table) == 0.0


def test_redeals_reshuffle_only_the_stock_and_play_outs_finish_the_hand_on_a_copy():
    """The play-out helpers the labels use (once train.rollouts'): a redeal changes no view,
    only the order of the unseen stock; a play-out applies the move, then the bots play to
    the hand's end, and leaves its start as it was."""
    rules = get_rules("standard")
    state = GinRummyState(rules, 5)
    bots = [agents.make("gin_rummy/expert") for _ in range(2)]
    for _ in range(6):  # a few moves into the hand
        seat = state.current_player
        state.apply(int(bots[seat].act(state.view(seat), state.legal_actions())))
    assert not state.results
    views = [state.view(s) for s in range(2)]
    stock = list(state.stock)
    starts = kh.redealt(state, 4, np.random.default_rng(1))
    assert len(starts) == 4 and all(s is not state for s in starts)
    assert any(list(s.stock) != stock for s in starts)
    for s in starts:
        assert sorted(s.stock) == sorted(stock)
        assert [s.view(seat) for seat in range(2)] == views
    assert list(state.stock) == stock  # the original keeps its order
    move = state.legal_actions()[0]
    before = (list(starts[0].stock), starts[0].view(starts[0].current_player))
    out = kh.played_out(starts[0], move, bots)
    assert len(out.results) == 1 and not starts[0].results
    assert (list(starts[0].stock), starts[0].view(starts[0].current_player)) == before
    twin = starts[0].clone()  # the same play-out by hand
    twin.apply(move)
    while not twin.results:
        seat = twin.current_player
        twin.apply(int(bots[seat].act(twin.view(seat), twin.legal_actions())))
    assert twin.results[-1].points == out.results[-1].points
    assert twin.scores == out.scores


def test_labels_come_only_where_a_knock_other_than_gin_is_legal():
    table = np.full((100, 100, 2), 0.5)
    obs, gains = kh.label_games(get_rules("standard"), "gin_rummy/expert", 3, seed=2,
                                reshuffles=2, table=table)
    at = LAY["knock"]
    assert len(obs) == len(gains) > 0
    assert np.all(obs[:, at] == 1.0) and np.all(obs[:, at + 1] > 0)  # legal, not gin
    assert np.all(np.abs(gains) <= 1.0)
    assert np.any(gains != 0.0)


def decision(knock_legal: bool, gin: bool, knocks_prefer: int, other_best: int):
    """One synthetic row: discard actions 2..5 legal with logits rising to ``other_best``,
    knocks of cards 0..2 legal (if ``knock_legal``) with card ``knocks_prefer`` likeliest."""
    obs = torch.zeros(1, LAY.size)
    mask = torch.zeros(1, NUM_ACTIONS)
    logits = torch.full((1, NUM_ACTIONS), MASKED)
    for a in range(2, 6):
        mask[0, a] = 1.0
        logits[0, a] = 1.0 if a == other_best else 0.0
    if knock_legal:
        for c in range(3):
            mask[0, KNOCK_OFFSET + c] = 1.0
            logits[0, KNOCK_OFFSET + c] = -5.0 + (c == knocks_prefer)
    if gin:
        obs[0, LAY["discard_gin"] + 1] = 1.0
    return obs, mask, logits


class Constant(torch.nn.Module):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, observation):
        return torch.full((observation.shape[0],), self.value)


@pytest.mark.parametrize("gain, expect", [(0.02, KNOCK_OFFSET + 2), (-0.02, 4)])
def test_switch_knocks_exactly_when_the_head_gains(gain, expect):
    switch = kh.KnockSwitch(Constant(gain))
    obs, mask, logits = decision(True, False, knocks_prefer=2, other_best=4)
    out = switch(obs, mask, logits)
    assert int(out.argmax()) == expect
    assert torch.all(out[mask == 0] == MASKED)  # illegal moves stay out
    assert torch.equal(out[0, :KNOCK_OFFSET], logits[0, :KNOCK_OFFSET])  # other moves kept


@pytest.mark.parametrize("knock_legal, gin", [(False, False), (True, True)])
def test_switch_leaves_gin_and_knockless_decisions_to_the_policy(knock_legal, gin):
    switch = kh.KnockSwitch(Constant(-1.0))
    obs, mask, logits = decision(knock_legal, gin, knocks_prefer=0, other_best=3)
    assert torch.equal(switch(obs, mask, logits), logits)


def test_fit_learns_a_rule_the_observation_shows():
    rng = np.random.default_rng(0)
    obs = np.zeros((3000, LAY.size), np.float32)
    obs[:, LAY["knock"] + 2] = rng.random(3000)  # wait_gin
    gains = np.where(obs[:, LAY["knock"] + 2] < 0.3, 0.05, -0.05).astype(np.float32)
    head, stats = kh.fit(obs, gains, held_out=500, epochs=400)
    assert stats["gain"] == pytest.approx(stats["oracle"], abs=0.003)
    assert stats["knock_share"] == pytest.approx(0.3, abs=0.05)


def expert_views(preset: str, games: int):
    """(observation, mask) of every discard decision of a few expert games."""
    bot = agents.make("gin_rummy/expert")
    rows = []
    for seed in range(games):
        state = GinRummyState(get_rules(preset), seed)
        while not state.is_over:
            seat, legal = state.current_player, state.legal_actions()
            view = state.view(seat)
            if state.phase == "discard":
                mask = np.zeros(NUM_ACTIONS, np.float32)
                mask[legal] = 1.0
                rows.append((encode(view), mask))
            state.apply(int(bot.act(view, legal)))
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def test_exported_bot_with_a_head_plays_what_torch_plays(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from cardrl.train.export import Switched
    from cardrl.train.policy import MaskedLogits
    from cardrl.train.ppo import Trainer

    monkeypatch.chdir(tmp_path)
    cfg = TrainConfig(game="gin_rummy", preset="standard", observation="features", net=(32,),
                      n_games=4, n_steps=16, steps=64, eval_every=0, torch_threads=1,
                      name="kh").resolved()
    trainer = Trainer(cfg, resume=False, progress=False, quiet=True)
    obs, masks = expert_views("standard", 12)
    obs, masks = obs[:1000], masks[:1000]
    knock = (masks[:, KNOCK_OFFSET:].any(1)) & (obs[:, LAY["knock"] + 1] > 0)
    torch.manual_seed(3)
    head = kh.KnockHead(kh.head_inputs())
    with torch.no_grad():  # centre a random head on these decisions, so it says both, at
        # the widest gap between its outputs there (float error flips no sign)
        out = head(torch.as_tensor(obs[knock])).sort().values
        half = len(out) // 4 + int((out[len(out) // 4 + 1:3 * len(out) // 4]
                                    - out[len(out) // 4:3 * len(out) // 4 - 1]).argmax())
        head.net[-1].bias -= (out[half] + out[half + 1]) / 2
    head.save(trainer.run_dir / kh.HEAD_FILE, {"decisions": 0})
    path = trainer.export(tmp_path / "bot.onnx")
    bot = agents.load(path)
    assert bot.card["knock_head"] == {"decisions": 0}
    assert bot.card["observation"] == {"kind": "features", "version": FEATURES_VERSION}
    module = Switched(MaskedLogits(trainer.model.policy), kh.KnockSwitch(kh.KnockHead.load(
        trainer.run_dir / kh.HEAD_FILE))).eval()
    with torch.no_grad():
        want = module(torch.as_tensor(obs), torch.as_tensor(masks)).argmax(1).numpy()
        gains = head(torch.as_tensor(obs)).numpy()
    got = bot.session.run(None, {"observation": obs, "action_mask": masks})[0].argmax(1)
    assert np.array_equal(got, want)
    assert knock.sum() >= 20  # the switch decided often enough to be checked
    assert np.all((want[knock] >= KNOCK_OFFSET) == (gains[knock] > 0))
    assert (gains[knock] > 0).any() and (gains[knock] <= 0).any()


@pytest.mark.parametrize("argv, message", [
    (["missing-run"], "missing-run"),
    (["sp"], "plays spades"),
    (["g", "--games", "0"], "games must be a positive int, got 0"),
    (["g", "--held-out", "1.5"], "held_out must be in [0, 1), got 1.5"),
    (["g3"], "for 2 players, got num_players=3"),
    (["gi"], "run 'gi' reads the 'infostate' observation; the knock head reads the 'features' "
             "observation's knock block"),
])
def test_command_line_refuses_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    TrainConfig(game="spades", preset="killer", name="sp").save(tmp_path / "runs" / "sp")
    TrainConfig(game="gin_rummy", preset="standard", observation="features",
                name="g").save(tmp_path / "runs" / "g")
    TrainConfig(game="gin_rummy", preset="seed", observation="features", name="g3",
                rule_changes={"num_players": 3}).save(tmp_path / "runs" / "g3")
    TrainConfig(game="gin_rummy", preset="standard", name="gi").save(tmp_path / "runs" / "gi")
    assert knock_main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs" / argv[0] / kh.TABLE_FILE).exists()  # refused before work


def test_head_reads_the_knock_block_and_the_game_situation():
    names = [LAY.describe(i) for i in kh.head_inputs()]
    assert names[:len(KNOCK_FEATURES)] == [f"knock[{i}]" for i in range(len(KNOCK_FEATURES))]
    assert names[len(KNOCK_FEATURES):] == ["stock_size[0]", "scores[0]", "scores[1]",
                                           "dealer[0]"]


def test_the_plugin_is_found_by_its_place_and_other_games_have_none(tmp_path):
    assert plugins.find("gin_rummy") is gin_rummy
    assert plugins.find("spades") is None
    assert plugins.export_switch("spades", tmp_path) == (None, {})
    assert plugins.export_switch("gin_rummy", tmp_path) == (None, {})  # a run without a head
