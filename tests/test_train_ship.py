"""train.ship: the command lines a recipe still needs, stage by stage, and its recipes'
sanity (each names its game's preset and a step target)."""

from __future__ import annotations

import json

import pytest

from envs.games import get_game
from train import ship
from train.run import build_parser, config_from_args


@pytest.fixture
def recipe(monkeypatch):
    monkeypatch.setitem(ship.RECIPES, "g-p", {
        "game": "sevens", "preset": "random", "deals": 10,
        "args": ["--steps", "1000", "--minutes", "5", "--lr", "2e-5"],
        "stages": [["--steps", "3000", "--lr", "1e-4"]]})
    return "g-p"


def _ran(run_dir, steps: int) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "checkpoint.zip").write_bytes(b"")
    (run_dir / "state.json").write_text(json.dumps({"steps": steps}))


def test_stages_resume_where_the_run_stands(recipe, tmp_path):
    run_dir = tmp_path / "ship-g-p"
    assert ship.stage_commands(recipe, run_dir) == [
        ["--game", "sevens", "--preset", "random", "--name", "ship-g-p",
         "--steps", "1000", "--minutes", "5", "--lr", "2e-5"],
        ["--resume", "ship-g-p", "--steps", "3000", "--lr", "1e-4"]]
    _ran(run_dir, 400)  # the first stage was interrupted
    assert ship.stage_commands(recipe, run_dir) == [
        ["--resume", "ship-g-p", "--steps", "1000", "--minutes", "5"],
        ["--resume", "ship-g-p", "--steps", "3000", "--lr", "1e-4"]]
    _ran(run_dir, 1000)
    assert ship.stage_commands(recipe, run_dir) == [
        ["--resume", "ship-g-p", "--steps", "3000", "--lr", "1e-4"]]
    _ran(run_dir, 3000)
    assert ship.stage_commands(recipe, run_dir) == [["--resume", "ship-g-p"]]  # export only


@pytest.mark.parametrize("name", sorted(ship.RECIPES))
def test_every_recipe_parses_and_validates(name):
    recipe = ship.RECIPES[name]
    assert recipe["preset"] in get_game(recipe["game"]).presets
    first = ["--game", recipe["game"], "--preset", recipe["preset"], *recipe["args"]]
    config_from_args(build_parser().parse_args(first)).validate()
    for stage in recipe.get("stages", []):
        assert "--steps" in stage  # a later stage needs a target to know when it is done
        build_parser().parse_args(["--resume", "x", *stage])


@pytest.mark.parametrize("name", sorted(ship.RECIPES))
def test_every_shipped_bot_loads_on_the_installed_env_and_plays_legally(name):
    """A shipped bot trained on an older observation would be refused at load: every
    recipe's checkpoint must be current (retrain it when an encoder changes)."""
    import numpy as np

    import agents

    recipe = ship.RECIPES[name]
    path = ship.CHECKPOINTS / f"{name}.onnx"
    card = json.loads(path.with_suffix(".json").read_text())
    g = get_game(recipe["game"])
    assert card["env_name"] == g.env_name, f"{name} was trained on {card['env_name']}"
    bot = agents.load(path)
    rules = g.get_rules(recipe["preset"])
    if g.num_players(rules) != card["num_players"]:
        rules = g.get_rules(recipe["preset"], num_players=card["num_players"])
    state = g.new_state(rules, 3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        if state.is_over:
            break
        legal = state.legal_actions()
        seat = state.current_player
        action = bot.act(state.view(seat), legal)
        assert action in legal
        state.apply(action if rng.random() < 0.5 else int(rng.choice(legal)))
