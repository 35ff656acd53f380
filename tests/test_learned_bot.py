"""Exported bots: agents.load runs the ONNX file without torch, checks its card, refuses a
card of another env or observation version clearly, and plays in tournaments through the
registry."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.learned import BotLoadError
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_names, get_game
from cardrl.eval.config import TournamentConfig
from cardrl.eval.tournament import run_tournament
from cardrl.train.ppo import export_untrained

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export_untrained("spades", tmp_path_factory.mktemp("bot") / "spades-test.onnx",
                            net=(16,), seed=1)


def first_decisions(game: str, count: int) -> list[tuple]:
    g = get_game(game)
    state = g.new_state(g.get_rules(g.presets[0]), 5)
    rng = np.random.default_rng(0)
    out = []
    while len(out) < count and not state.is_over:
        legal = state.legal_actions()
        out.append((state.view(state.current_player), legal))
        state.apply(int(rng.choice(legal)))
    return out


def test_loading_and_playing_imports_no_torch(exported):
    code = f"""
import sys
from cardrl import agents
from cardrl.envs.games import get_game
bot = agents.load({str(exported)!r})
g = get_game("spades")
state = g.new_state(g.get_rules("killer"), 1)
moves = 0
while not state.is_over and moves < 60:
    a = bot.act(state.view(state.current_player), state.legal_actions())
    assert a in state.legal_actions()
    state.apply(a); moves += 1
print(moves, "torch" in sys.modules, "cardrl.train" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["60", "False", "False"]


def test_bot_plays_masked_argmax_of_its_logits(exported):
    bot = agents.load(exported)
    for view, legal in first_decisions("spades", 40):
        logits = bot.logits(view, legal)
        action = bot.act(view, legal)
        assert action in legal
        assert logits[action] == max(logits[legal])
        illegal = np.setdiff1d(np.arange(len(logits)), legal)
        assert (logits[illegal] == -1e8).all()


def test_a_sampling_bot_draws_from_its_softmax_legally_and_repeatably(exported):
    """``:sample=1`` draws each move from the network's softmax: always legal, repeated by a
    seed, and as often as the softmax says (the first decision, 4,000 draws)."""
    bot = agents.make(f"{exported}:sample=1")
    view, legal = first_decisions("spades", 1)[0]
    probs = bot.probabilities(view, legal)
    counts = dict.fromkeys(legal, 0)
    bot.reset(3)
    for _ in range(4000):
        counts[bot.act(view, legal)] += 1
    for a in legal:
        assert counts[a] / 4000 == pytest.approx(probs[a], abs=0.03)
    again = agents.make(f"{exported}:sample=1")
    views = [v for v, _ in first_decisions("spades", 30)]
    legals = [lg for _, lg in first_decisions("spades", 30)]
    bot.reset(9)
    again.reset(9)
    assert bot.act_batch(views, legals) == again.act_batch(views, legals)
    assert all(a in lg for a, lg in zip(bot.act_batch(views, legals), legals, strict=True))
    with pytest.raises(ValueError, match="sample must be true or false"):
        agents.make(f"{exported}:sample=maybe")


def test_a_card_may_ask_for_sampling_and_a_spec_may_refuse_it(exported, tmp_path):
    path = copy_bot(exported, tmp_path, sample=True)
    assert agents.load(path).sample and not agents.load(exported).sample
    assert not agents.make(f"{path}:sample=0").sample


def test_card_path_and_onnx_path_load_the_same_bot(exported):
    a, b = agents.load(exported), agents.load(exported.with_suffix(".json"))
    assert a.game == b.game == "spades" and a.path == b.path
    made = agents.make(str(exported))
    assert made.game == "spades" and made.name == str(exported) and made.path == a.path
    with pytest.raises(ValueError, match=r"unknown option\(s\) \[.depth.\] for bot file"):
        agents.make(f"{exported}:depth=2")
    assert all(not n.endswith(".onnx") for n in agents.names())  # files are not registered


def copy_bot(src: Path, dst_dir: Path, **card_changes) -> Path:
    dst = dst_dir / src.name
    dst.write_bytes(src.read_bytes())
    card = json.loads(src.with_suffix(".json").read_text())
    card.update(card_changes)
    dst.with_suffix(".json").write_text(json.dumps(card))
    return dst


def test_card_of_another_env_version_is_refused_clearly(exported, tmp_path):
    old = copy_bot(exported, tmp_path, env_name="spades_v99")
    with pytest.raises(BotLoadError, match=r"trained on 'spades_v99' but the installed spades "
                                           r"env is 'spades_v6'"):
        agents.load(old)
    with pytest.raises(ValueError, match="spades_v99"):
        agents.make(str(old))


def test_a_bot_of_a_version_that_changed_only_the_rewards_still_plays(exported, tmp_path):
    """spades_v6 changed what the env pays, not its actions or observations: a spades_v5
    bot plays it (``Game.bots_carry_over_from``); spades_v4's observation differs."""
    (folder := tmp_path / "v5").mkdir()
    assert agents.load(copy_bot(exported, folder, env_name="spades_v5")).game == "spades"
    (folder := tmp_path / "v4").mkdir()
    with pytest.raises(BotLoadError, match="trained on 'spades_v4'"):
        agents.load(copy_bot(exported, folder, env_name="spades_v4"))


def test_card_of_another_observation_version_is_refused_naming_both(exported, tmp_path):
    installed = get_game("spades").encoder("infostate")
    card = json.loads(exported.with_suffix(".json").read_text())
    assert card["observation"] == {"kind": "infostate", "version": installed.version}
    old = copy_bot(exported, tmp_path, observation={"kind": "infostate",
                                                    "version": installed.version + 98})
    with pytest.raises(BotLoadError) as err:
        agents.load(old)
    for version in (installed.version + 98, installed.version):  # the card's, the installed
        assert re.search(rf"infostate/{version}\b", str(err.value)), str(err.value)
    with pytest.raises(ValueError, match=f"infostate/{installed.version + 98}"):
        agents.make(str(old))


def test_card_without_an_observation_is_refused_asking_for_a_re_export(exported, tmp_path):
    old = copy_bot(exported, tmp_path)
    card = json.loads(old.with_suffix(".json").read_text())
    del card["observation"]
    old.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(BotLoadError, match=r"has no 'observation' .*re-export it"):
        agents.load(old)


def test_card_naming_the_other_kind_is_refused_by_its_size(exported, tmp_path):
    """An infostate network whose card claims the features kind would be fed vectors of
    another length: its size check refuses it."""
    version = get_game("spades").encoder("features").version
    wrong = copy_bot(exported, tmp_path, observation={"kind": "features", "version": version})
    with pytest.raises(BotLoadError, match=r"obs_size 805 but features/\d+ for 4 players has "
                                           r"1334"):
        agents.load(wrong)


@pytest.mark.parametrize("change, message", [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"observation": {"kind": "expert", "version": 1}}, "observation kind 'expert'"),
    ({"observation": "infostate/1"}, "'observation' must be like"),
    ({"observation": {"kind": "infostate", "version": True}}, "'observation' must be like"),
    ({"format": "other/1"}, "is not a cardrl-bot-card/1 card"),
    ({"onnx": "missing.onnx"}, "does not exist"),
])
def test_bad_cards_are_refused_naming_the_problem(exported, tmp_path, change, message):
    with pytest.raises(BotLoadError, match=message):
        agents.load(copy_bot(exported, tmp_path, **change))


def test_missing_or_broken_files_are_refused(exported, tmp_path):
    with pytest.raises(BotLoadError, match="no bot card"):
        agents.load(tmp_path / "nothing.onnx")
    bad = copy_bot(exported, tmp_path)
    bad.with_suffix(".json").write_text("{not json")
    with pytest.raises(BotLoadError, match="not readable JSON"):
        agents.load(bad)
    bad.with_suffix(".json").write_text(exported.with_suffix(".json").read_text())
    bad.write_bytes(b"not an onnx model")
    with pytest.raises(BotLoadError, match="not a loadable ONNX model"):
        agents.load(bad)


def test_illegal_action_ids_are_refused(exported):
    bot = agents.load(exported)
    view, _ = first_decisions("spades", 1)[0]
    with pytest.raises(ValueError, match="outside 0..67"):
        bot.act(view, [3, 99])
    with pytest.raises(ValueError, match="no legal actions"):
        bot.act(view, [])


def test_exported_bot_plays_a_duplicate_tournament(exported, tmp_path):
    spec = str(exported)
    cfg = TournamentConfig(game="spades", preset="killer",
                           bots=(spec, "spades/count-bid", "random", "random"), max_hands=3)
    run = run_tournament(cfg, 2, tmp_path / "t")
    row = next(b for b in run.summary["bots"] if b["bot"] == spec)
    assert row["games"] == 8 and run.summary["games"] == 8


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", game_names())
def test_every_game_exports_and_loads(game, kind, tmp_path):
    path = export_untrained(game, tmp_path / f"{game}.onnx", observation=kind)
    bot = agents.load(path)
    encoder = get_game(game).encoder(kind)
    assert bot.game == game and bot.card["env_name"] == get_game(game).env_name
    assert bot.card["observation"] == {"kind": kind, "version": encoder.version}
    assert bot.encoder is encoder and bot.card["obs_size"] == encoder.size(
        bot.card["num_players"])
    for view, legal in first_decisions(game, 20):
        assert bot.act(view, legal) in legal


def test_cardrl_names_a_shipped_bot_and_anything_else_is_a_path(tmp_path, monkeypatch):
    """``cardrl/<name>`` is a bot inside the installed package, wherever it is run from;
    an unknown name is refused with the list; a path (even under a folder named cardrl)
    is the user's own file."""
    from cardrl.agents.learned import BotLoadError, resolve, shipped_bots, shipped_folder

    monkeypatch.chdir(tmp_path)  # nothing of the checkout beside us
    shipped = shipped_bots()
    assert shipped == sorted(shipped) and "cardrl/spades-killer" in shipped
    assert shipped_bots("sevens") == ["cardrl/sevens-random"]
    assert resolve("cardrl/spades-killer") == shipped_folder() / "spades-killer.onnx"
    bot = agents.make("cardrl/sevens-random")
    assert bot.game == "sevens" and bot.name == "cardrl/sevens-random"
    with pytest.raises(BotLoadError, match=r"no shipped bot 'cardrl/nobody'.*cardrl/sevens-random"):
        agents.load("cardrl/nobody")
    own = tmp_path / "cardrl" / "sevens-random.onnx"  # a folder of the user's named so
    own.parent.mkdir()
    shutil.copy(resolve("cardrl/sevens-random"), own)
    shutil.copy(resolve("cardrl/sevens-random").with_suffix(".json"), own.with_suffix(".json"))
    assert resolve("cardrl/sevens-random.onnx") == Path("cardrl/sevens-random.onnx")
    assert agents.load("cardrl/sevens-random.onnx").card["game"] == "sevens"
    for bad in ("cardrl/", "cardrl/../x", "cardrl/Spades"):
        with pytest.raises(BotLoadError, match="no bot card"):
            agents.load(bad)
