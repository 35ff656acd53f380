"""cardrl.train.ship: the stages a recipe still needs, what a resumed stage may change, and its
recipes' sanity (each a valid config per stage of one run)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cardrl.agents.search import SearchBot
from cardrl.envs.games import game_names, get_game
from cardrl.train import plugins, ship
from cardrl.train.config import TrainConfig
from cardrl.train.opponents import POLICY_KINDS
from cardrl.train.runs import RunState, read_evals


@pytest.fixture
def recipe(monkeypatch):
    first = TrainConfig(game="sevens", preset="random", steps=1000, n_games=8,
                        learning_rate=2e-5)
    monkeypatch.setitem(ship.RECIPES, "g-p", ship.Recipe(
        summary="a test recipe", deals=10,
        stages=(first, replace(first, steps=3000, learning_rate=1e-4))))
    return "g-p"


def _ran(run_dir, steps: int) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "checkpoint.zip").write_bytes(b"")
    (run_dir / "state.json").write_text(json.dumps({"steps": steps}))


def test_stages_resume_where_the_run_stands(recipe, tmp_path):
    """What train.run would be told: a new run; a resume to a stage's steps with the knobs it
    changes from the stage before; a resume changing nothing once all is done (to export)."""
    run_dir = tmp_path / "ship-g-p"

    def left():
        return [(cfg.steps, cfg.name, changes)
                for cfg, changes in ship.stages_left(recipe, run_dir)]

    assert left() == [(1000, "ship-g-p", None),
                      (3000, "ship-g-p", {"steps": 3000, "learning_rate": 1e-4})]
    _ran(run_dir, 400)  # the first stage was interrupted: resumed up to its target only
    assert left() == [(1000, "ship-g-p", {"steps": 1000}),
                      (3000, "ship-g-p", {"steps": 3000, "learning_rate": 1e-4})]
    _ran(run_dir, 1000)
    assert left() == [(3000, "ship-g-p", {"steps": 3000, "learning_rate": 1e-4})]
    _ran(run_dir, 3000)
    assert left() == [(3000, "ship-g-p", {})]


RECIPE_FILE = """
[a-2p]
base = "scratch"
summary = "{stage1.steps:short} then {stage3.steps:,} at lr {stage2.learning_rate:short}"
deals = 10

[[a-2p.stages]]
preset = "2p"
steps = 100_000
eval_every = 50

[[a-2p.stages]]
steps = 200_000
eval_every = 25
learning_rate = 1e-4

[[a-2p.stages]]
steps = 400_000

[b-2p]
like = "a-2p"
judge_bots = ["random"]

[[b-2p.stages]]
eval_every = 10

[c-2p]
like = "b-2p"
deals = 20

[[c-2p.stages]]
[[c-2p.stages]]
learning_rate = 5e-5
"""


def _write(tmp_path, text: str) -> Path:
    path = tmp_path / "blind_auction.toml"  # a recipe file is named after its game
    path.write_text(text)
    return path


def test_a_recipe_files_stages_chain_over_its_base_and_its_summary_is_derived(tmp_path):
    """Each later stage changes its knobs from the stage before, the first from its base;
    ``like`` copies another recipe, stage by stage; the summary's numbers are the stages'."""
    recipes = ship.load_recipes(_write(tmp_path, RECIPE_FILE))
    a, b = recipes["a-2p"], recipes["b-2p"]
    assert [(s.steps, s.eval_every, s.learning_rate) for s in a.stages] == [
        (100_000, 50, 3e-4), (200_000, 25, 1e-4), (400_000, 25, 1e-4)]
    assert a.stages[0].opponents == "self@0.6,snapshot@0.4" and not a.ships  # the base's
    assert a.stages[0].game == "blind_auction"
    assert a.summary == "100k then 400,000 at lr 1e-4 (current policy 60%, snapshots 40%)"
    assert [s.eval_every for s in b.stages] == [10, 25, 25] and b.judge_bots == ("random",)
    assert b.stages[1:] == a.stages[1:] and b.summary == a.summary
    c = recipes["c-2p"]  # like b, which is like a: each link's changes over the next's
    assert [(s.eval_every, s.learning_rate) for s in c.stages] == [
        (10, 3e-4), (25, 5e-5), (25, 5e-5)]
    assert (c.deals, c.judge_bots) == (20, ("random",))
    assert c.summary == a.summary.replace("lr 1e-4", "lr 5e-5")  # its own last stage's


@pytest.mark.parametrize("change, message", [
    (("deals = 10", "deals = 10\nsteps = 5"), "[a-2p]: unknown keys ['steps']"),
    (("eval_every = 50", "eval_evry = 50"), "[a-2p] stage 1: unknown TrainConfig fields "
                                             "['eval_evry']"),
    (("steps = 400_000", "steps = -4"), "[a-2p] stage 3: steps must be a positive int"),
    (("preset = \"2p\"", "preset = \"9p\""), "[a-2p] stage 1: unknown preset '9p'"),
    (("base = \"scratch\"", "base = \"rough\""), "[a-2p]: base 'rough' is not one of"),
    (("like = \"a-2p\"", "like = \"d-2p\""), "[b-2p]: like 'd-2p' is no other recipe"),
    (("like = \"a-2p\"", "like = \"c-2p\""), "[b-2p]: like goes round: b-2p -> c-2p -> b-2p"),
    (("like = \"a-2p\"", "like = \"b-2p\""), "[b-2p]: like goes round: b-2p -> b-2p"),
    (("like = \"a-2p\"", "like = [\"a-2p\"]"), "[b-2p]: like ['a-2p'] is no other recipe"),
    (("deals = 10", "deals = 0"), "deals must be a positive int, got 0"),
    (("{stage1.steps:short}", "{stage4.steps}"), "[a-2p]: KeyError('stage4')"),
    (("judge_bots = [\"random\"]", "judge_bots = [\"spades/expert\"]"), "[b-2p]: "),
    (("judge_bots = [\"random\"]", "judge_fill = \"spades/expert\""), "[b-2p]: "),
    (("judge_bots = [\"random\"]", "judge_fill = 3"), "judge_fill must be a bot spec, got 3"),
])
def test_a_bad_recipe_file_is_refused_naming_the_file_and_the_key(change, message, tmp_path):
    path = _write(tmp_path, RECIPE_FILE.replace(*change))
    with pytest.raises(ValueError) as err:
        ship.load_recipes(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_every_recipe_file_is_a_games_and_loads(tmp_path):
    """Every file in train/recipes is a game's (or the bases), and loads: the recipes ship
    lists are exactly those of the files."""
    files = sorted(ship.RECIPES_DIR.glob("*.toml"))
    assert {p.stem for p in files} <= {*game_names(), ship.BASES}
    loaded = {}
    for path in files:
        if path.stem != ship.BASES:
            loaded.update(ship.load_recipes(path))
    assert loaded == ship.all_recipes() == ship.RECIPES
    with pytest.raises(ValueError, match="named after its game"):
        ship.load_recipes(tmp_path / "chess.toml")


def test_the_list_prints_each_recipes_derived_lines(capsys):
    """``--list`` is every recipe's ``describe``: the summary derived from its stages, then
    each stage's knobs that differ from the stage before."""
    assert ship.main(["--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        line for name in ship.RECIPES for line in ship.describe(name)]


def test_a_resumed_stage_changes_only_what_it_names(recipe):
    first, second = (replace(s, name="ship-g-p") for s in ship.RECIPES[recipe].stages)
    saved = replace(first.resolved(), ent_coef=0.02)  # the user edited config.json
    cfg = ship.resumed(saved, second, {"steps": 3000, "learning_rate": 1e-4})
    assert (cfg.steps, cfg.learning_rate, cfg.ent_coef, cfg.n_games) == (3000, 1e-4, 0.02, 8)
    assert replace(cfg, steps=saved.steps, learning_rate=saved.learning_rate) == saved
    with pytest.raises(ValueError, match=r"other \['n_games'\] than this stage"):
        ship.resumed(saved, replace(second, n_games=16), {})  # the run's envs are built


@pytest.mark.parametrize("name", sorted(ship.RECIPES))
def test_every_recipe_validates_and_lists(name, capsys):
    """Step counts only (a recipe makes the same bot on any machine), one run (every stage
    of the same game and preset, each longer than the last), a summary for the card, a
    plug-in stage only where the game has a plug-in that takes its settings."""
    recipe = ship.RECIPES[name]
    assert recipe.preset in get_game(recipe.game).presets
    steps = [stage.steps for stage in recipe.stages]
    assert steps == sorted(set(steps))
    for stage in recipe.stages:
        stage.validate()
        assert (stage.game, stage.preset) == (recipe.game, recipe.preset)
    if recipe.extra:
        plugins.find(recipe.game).check(recipe.stages[-1], **recipe.extra)
    assert isinstance(recipe.summary, str) and recipe.summary.strip()
    assert ship.recipe_card(name) == {"name": name, "summary": recipe.summary,
                                      "command": f"python -m cardrl.train.ship {name}",
                                      "teachers": ship.teachers(name)}
    assert ship.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert f"{name}: {recipe.summary}" in listed.splitlines()
    assert f"game={recipe.game} preset={recipe.preset}" in listed


@pytest.mark.parametrize("name", sorted(n for n, r in ship.RECIPES.items()
                                         if r.ships))
def test_every_shipped_bot_loads_on_the_installed_env_and_plays_legally(name):
    """A shipped bot trained on an older observation would be refused at load: every
    recipe's checkpoint must be current (retrain it when an encoder changes)."""
    import numpy as np

    from cardrl import agents

    recipe = ship.RECIPES[name]
    path = ship.bot_path(name)
    assert path.parent == ship.CHECKPOINTS
    card = json.loads(path.with_suffix(".json").read_text())
    g = get_game(recipe.game)
    # the installed env, or one it declares the bots of carry over (only rewards changed)
    assert g.plays(card["env_name"]), f"{name} was trained on {card['env_name']}"
    # the card says how it was made as the recipe does now, its teachers included
    assert card["recipe"] == ship.recipe_card(name) and card["onnx"] == path.name
    # a bot shipped inside a search plays it with few worlds: the search's cost grows with
    # them, the code it runs and the legality it must keep do not
    search = card.get("search")
    bot = agents.load(path, **({"worlds": 2} if search else {}))
    if search:
        assert isinstance(bot, SearchBot) and bot.top_k == search["top_k"]
    rules = g.get_rules(recipe.preset)
    if g.num_players(rules) != card["num_players"]:
        rules = g.get_rules(recipe.preset, num_players=card["num_players"])
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


def test_judging_a_search_recipe_ships_the_search_and_plays_the_network_alone_too(
        tmp_path, monkeypatch):
    """The card names the search that agents.load plays; the network alone meets the best
    rule bot on the same deals; the logs sit under the bot's fingerprint, so a rerun of an
    interrupted match resumes them, and another bot (or other search settings) does not."""
    import shutil

    from cardrl import agents
    from cardrl.agents.search import SearchBot

    path = tmp_path / "spades-killer.onnx"
    shutil.copy(ship.CHECKPOINTS / "spades-killer.onnx", path)
    shutil.copy(ship.CHECKPOINTS / "spades-killer.json", path.with_suffix(".json"))
    monkeypatch.chdir(tmp_path)
    calls = []

    def fake_evaluate(game, preset, bot, opponents, deals, out, **kwargs):
        calls.append((bot, tuple(opponents), Path(out), kwargs["fresh"]))
        return {o: {"win": 0.3, "win_ci95": 0.05, "no_edge_win": 0.25, "rank": 2.3,
                    "rank_ci95": 0.1, "score": 1.0, "score_ci95": 1.0, "games": 300}
                for o in opponents}

    monkeypatch.setattr(ship, "evaluate", fake_evaluate)
    search = ship.RECIPES["spades-killer"].search
    final = ship.judge("spades-killer", path, 75, 1, False)
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["search"] == search and card["final_evaluation"] == final
    assert card["recipe"] == ship.recipe_card("spades-killer")
    assert set(final["network_results"]) == {"spades/expert"}
    (bot, opps, out, fresh), (net, net_opps, net_out, _) = calls
    assert (bot, opps, fresh) == (str(path), ("spades/expert",), False)
    assert (net, net_opps, net_out) == (f"{path}:worlds=0", ("spades/expert",), out / "network")
    assert isinstance(agents.load(path), SearchBot)
    monkeypatch.setitem(ship.RECIPES, "spades-killer",
                        replace(ship.RECIPES["spades-killer"], search={**search, "worlds": 8}))
    ship.judge("spades-killer", path, 75, 1, False)
    assert calls[2][2] != out  # other settings: other games
    ship.judge("spades-killer", path, 75, 1, False)
    assert calls[4][2] == calls[2][2]  # the same bot again: the same games, resumed


def test_judging_a_sampling_recipe_marks_the_card_and_reports_the_time_to_beat(
        tmp_path, monkeypatch):
    """A recipe whose bot plays its mixed strategy says so in the card (agents.load then
    samples), and the final match carries when the run's evaluations first beat each bot."""
    import shutil

    from cardrl import agents

    name = "blind_auction-2p-scratch"
    assert ship.RECIPES[name].sample
    path = tmp_path / "blind_auction-2p.onnx"
    shutil.copy(ship.CHECKPOINTS / "blind_auction-2p.onnx", path)
    shutil.copy(ship.CHECKPOINTS / "blind_auction-2p.json", path.with_suffix(".json"))
    monkeypatch.chdir(tmp_path)
    run = ship.run_dir(name)
    run.mkdir(parents=True)
    evals = [{"step": s, "wall_time_s": s / 1000, "results": {
        "blind_auction/high-early": {"win": w, "win_ci95": 0.05, "no_edge_win": 0.5}}}
        for s, w in ((0, 0.5), (250_000, 0.7))]
    (run / "evals.jsonl").write_text("".join(json.dumps(e) + "\n" for e in evals))

    def fake_evaluate(game, preset, bot, opponents, deals, out, **kwargs):
        return {o: {"win": 0.5, "win_ci95": 0.05, "no_edge_win": 0.5, "rank": 1.5,
                    "rank_ci95": 0.1, "score": 0.0, "score_ci95": 1.0, "games": 2}
                for o in opponents}

    monkeypatch.setattr(ship, "evaluate", fake_evaluate)
    final = ship.judge(name, path, 10, 1, False)
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["sample"] is True and agents.load(path).sample
    beat = final["time_to_beat"]
    assert beat["blind_auction/high-early"]["step"] == 250_000
    assert beat["blind_auction/save-high"] is None  # never evaluated: never shown beaten


def test_a_recipe_that_does_not_ship_writes_its_bot_into_its_run_not_checkpoints():
    kept = [n for n, r in ship.RECIPES.items() if not r.ships]
    assert kept, "the from-scratch recipes are kept beside their runs"
    for name in kept:
        assert ship.bot_path(name) == Path("runs") / f"ship-{name}" / f"{name}.onnx"
        for stage in ship.RECIPES[name].stages:
            assert not getattr(stage, "imitate", "")  # from scratch: no teacher
            opponents = getattr(stage, "opponents", "self@1")  # (DMC: every seat itself)
            # no rule bot: the learner's own policies, or a uniform random player (no rule)
            kinds = {o.split("@")[0] for o in opponents.split(",")}
            assert kinds <= {*POLICY_KINDS, "random"}, (name, kinds)
        assert ship.recipe_card(name)["teachers"] == []  # the card: learned without a teacher


def test_a_recipe_card_names_the_rule_bots_its_bot_learned_from(monkeypatch):
    """Imitated and seated rule bots, each once, in the order met (``rules`` is the game's
    strongest); the learner's own policies and the uniform random player are no teacher."""
    base = TrainConfig(game="blind_auction", preset="2p", steps=64)
    stages = (replace(base, imitate="blind_auction/mirror",
                      opponents="self@0.4,random@0.2,blind_auction/mirror@0.2,rules@0.2"),
              replace(base, steps=128, opponents="greedy@0.5,blind_auction/match@0.5"))
    monkeypatch.setitem(ship.RECIPES, "t-2p", ship.Recipe(summary="t", stages=stages, deals=1))
    strongest = ship.strongest_bots("blind_auction")
    assert ship.teachers("t-2p") == list(dict.fromkeys(
        ["blind_auction/mirror", *strongest, "blind_auction/match"]))
    monkeypatch.setitem(ship.RECIPES, "t-2p", ship.Recipe(
        summary="t", stages=(replace(base, opponents="self@0.5,average@0.3,random@0.2"),),
        deals=1))
    assert ship.teachers("t-2p") == [] and ship.recipe_card("t-2p")["teachers"] == []


def test_ship_trains_each_stage_then_the_plugin_stage_and_exports(tmp_path, monkeypatch):
    """ship.train calls the trainer on each stage (the second resumes the run with its own
    learning rate and steps), then the game's plug-in: checked first, run on the finished
    run, and asked at export for its switch and card fields."""
    monkeypatch.chdir(tmp_path)
    first = TrainConfig(game="blind_auction", preset="2p", steps=64, n_games=4, n_steps=16,
                        batch_size=32, n_epochs=1, net=(8,), eval_every=64, eval_deals=1,
                        eval_bots=("blind_auction/match",), checkpoint_every=64,
                        snapshot_every=64, torch_threads=1)
    calls = []

    class Plugin:
        @staticmethod
        def check(cfg, **settings):
            calls.append(("check", cfg.name, settings))

        @staticmethod
        def extra_stage(cfg, **settings):
            calls.append(("stage", cfg.steps, settings))
            (cfg.run_dir / "extra.json").write_text("{}")

        @staticmethod
        def export_switch(run_dir):
            return None, ({"extra": "here"} if (run_dir / "extra.json").is_file() else {})

    monkeypatch.setattr(plugins, "find", lambda game: Plugin if game == "blind_auction" else None)
    monkeypatch.setitem(ship.RECIPES, "t-2p", ship.Recipe(
        summary="tiny", deals=1, extra={"knob": 1},
        stages=(first, replace(first, steps=128, learning_rate=1e-4))))
    path = tmp_path / "bot.onnx"
    assert ship.train("t-2p", path) == 0
    saved = TrainConfig.load_run("ship-t-2p")
    assert (saved.steps, saved.learning_rate) == (128, 1e-4)
    assert calls == [("check", "ship-t-2p", {"knob": 1}), ("stage", 128, {"knob": 1})]
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["training"]["steps"] >= 128 and card["extra"] == "here"
    assert (Path("runs") / "ship-t-2p" / "policy.onnx").is_file()
    assert ship.stages_left("t-2p", Path("runs") / "ship-t-2p") == [
        (replace(first, steps=128, learning_rate=1e-4, name="ship-t-2p"), {})]


def test_a_dmc_recipe_trains_by_dmc_resumes_from_its_checkpoint_and_exports(tmp_path,
                                                                           monkeypatch):
    """A recipe whose stage is a ``DMCConfig`` is trained by ``cardrl.train.dmc``: its run holds
    DMC's checkpoint, a finished run is resumed changing nothing (and exports again), and
    the exported card says which trainer made it."""
    from cardrl.train.dmc import CHECKPOINT as DMC_CHECKPOINT
    from cardrl.train.dmc import DMCConfig

    monkeypatch.chdir(tmp_path)
    stage = DMCConfig(game="blind_auction", preset="2p", steps=256, n_games=4, net=(8,),
                      batch_size=32, train_freq=64, buffer_size=512, eval_every=256,
                      eval_deals=1, eval_bots=("blind_auction/match",),
                      checkpoint_every=128, torch_threads=1)
    monkeypatch.setitem(ship.RECIPES, "d-2p", ship.Recipe(summary="tiny dmc", deals=1,
                                                          stages=(stage,)))
    folder = Path("runs") / "ship-d-2p"
    assert ship.stages_left("d-2p", folder) == [(replace(stage, name="ship-d-2p"), None)]
    path = tmp_path / "bot.onnx"
    assert ship.train("d-2p", path) == 0
    assert (folder / DMC_CHECKPOINT).is_file() and not (folder / "checkpoint.zip").exists()
    assert isinstance(DMCConfig.load_run("ship-d-2p"), DMCConfig)
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["training"]["steps"] >= 256 and card["training"]["algo"] == "dmc"
    assert ship.stages_left("d-2p", folder) == [(replace(stage, name="ship-d-2p"), {})]
    path.unlink()
    assert ship.train("d-2p", path) == 0 and path.is_file()  # resumed, nothing to train
    assert "stage 1:" in "\n".join(ship.describe("d-2p"))


@pytest.mark.parametrize("name", ["spades-killer-dmc-scratch", "spades-cutthroat-dmc-scratch",
                                  "spades-cutthroat-dmc-games", "spades-cutthroat",
                                  "spades-killer", "spades-killer-dmc-10min",
                                  "spades-killer-dmc-long"])
def test_the_spades_dmc_recipes_train_shrunk_on_lambda_returns_and_are_judged(
        name, tmp_path, monkeypatch):
    """The Spades recipes by Deep Monte Carlo from scratch, shrunk: trained by
    ``cardrl.train.dmc`` on lambda-returns (their card's config says so), no teacher,
    judged at four seats: no edge 1/4. Those that beat the clone of the expert head to
    head (``spades-killer``, ``spades-cutthroat``) ship inside the belief search, their
    network alone judged beside it; the others are written beside their runs. A later
    stage only runs the same training longer (resumed)."""
    from cardrl.train.dmc import DMCConfig

    recipe = ship.RECIPES[name]
    stage, *later = recipe.stages
    assert all(s == replace(stage, steps=s.steps) and s.steps > stage.steps for s in later)
    ships = name in ("spades-killer", "spades-cutthroat")
    assert isinstance(stage, DMCConfig) and stage.td_lambda < 1 and recipe.ships == ships
    assert ship.teachers(name) == []
    assert (stage.preset, stage.episode, stage.hand_reward) == {  # each variant's one change
        "spades-cutthroat-dmc-scratch": ("cutthroat", "hand", "points"),
        "spades-cutthroat-dmc-games": ("cutthroat", "game", "points"),
        "spades-cutthroat": ("cutthroat", "hand", "worth"),
    }.get(name, ("killer", "hand", "points"))
    assert (recipe.search or {}).get("belief", 0) > 0 if ships else recipe.search is None
    # the baseline it replaced: the clone, still a recipe of its own
    clone = f"spades-{stage.preset}-clone"
    assert ship.RECIPES[clone].ships and ship.teachers(clone) == ["spades/expert"]
    if ships:  # the committed bot plays inside its recipe's search
        from cardrl import agents
        from cardrl.agents.search import SearchBot

        bot = agents.load(f"cardrl/{name}")
        assert isinstance(bot, SearchBot) and bot.belief == recipe.search["belief"]
        assert bot.policy.card["recipe"] == ship.recipe_card(name)
    tiny = replace(stage, steps=256, n_games=4, net=(8,), batch_size=32, train_freq=64,
                   buffer_size=512, eval_deals=1, checkpoint_every=128, torch_threads=1,
                   max_hands=1, eval_every=min(stage.eval_every, 256))
    monkeypatch.chdir(tmp_path)
    tinies = (tiny, *(replace(tiny, steps=256 * (i + 2)) for i in range(len(later))))
    monkeypatch.setitem(ship.RECIPES, name, replace(recipe, stages=tinies, search=None,
                                                    judge_bots=("random",)))  # (search: above)
    path = ship.bot_path(name)
    assert path.parent == (ship.CHECKPOINTS if ships else ship.run_dir(name))
    assert ship.train(name, path) == 0
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["training"]["algo"] == "dmc" and card["training"]["config"]["td_lambda"] == 0.9
    assert tinies[-1].steps <= card["training"]["steps"] < tinies[-1].steps + 256
    assert card["training"]["config"]["hand_reward"] == stage.hand_reward
    final = ship.judge(name, path, 1, 1, False)
    (result,) = final["results"].values()
    assert result["no_edge_win"] == pytest.approx(1 / 4) and result["games"] == 4


def test_the_two_player_scratch_recipe_ships_one_average_network_of_its_seeds(
        tmp_path, monkeypatch):
    """``blind_auction-2p-scratch`` shrunk: half its opponents are its snapshots by their
    argmax, it runs at its own seed and at each pool seed, and its bot is one average
    network fitted to the snapshots of every run (not one run's ``average.onnx``, nor its
    last policy), the same again when a finished recipe is run again; bad recipes are
    refused by name."""
    name = "blind_auction-2p-scratch"
    recipe = ship.RECIPES[name]
    assert recipe.network == "average" and recipe.sample and not recipe.ships
    assert len(recipe.pool_seeds) >= 2
    (stage,) = recipe.stages
    assert "greedy" in stage.opponents and stage.average_net > 0
    tiny = replace(stage, steps=256, n_games=4, n_steps=16, batch_size=32, n_epochs=1,
                   net=(8,), eval_every=256, eval_deals=1, checkpoint_every=128,
                   snapshot_every=64, average_net=64, torch_threads=1)
    monkeypatch.chdir(tmp_path)
    seeds = recipe.pool_seeds[:1]  # one more run shows the pooling
    monkeypatch.setitem(ship.RECIPES, name, replace(recipe, stages=(tiny,), pool_seeds=seeds))
    path = ship.bot_path(name)
    assert ship.train(name, path) == 0
    folders = [ship.run_dir(name)] + [ship.run_dir(name, s) for s in seeds]
    assert [TrainConfig.load(f).seed for f in folders] == [stage.seed, *seeds]
    for folder in folders:
        assert path.read_bytes() != (folder / "average.onnx").read_bytes()
        assert path.read_bytes() != (folder / "policy.onnx").read_bytes()
    pooled = json.loads(path.with_suffix(".json").read_text())["average_of_snapshots"]
    assert [r["run"] for r in pooled["runs"]] == [f.name for f in folders]
    assert all(r["steps"] >= 256 for r in pooled["runs"])
    assert pooled["snapshots"] == sum(len(RunState.load(f).average) for f in folders)
    assert pooled["decisions"] >= 64 * len(folders)
    assert pooled["fit_s"] > 0 and pooled["wall_time_s"] == pytest.approx(
        sum(r["wall_time_s"] for r in pooled["runs"]) + pooled["fit_s"], abs=0.02)
    first = path.read_bytes()
    assert ship.train(name, path) == 0 and path.read_bytes() == first
    with pytest.raises(ValueError, match="average_net"):
        ship._check(replace(recipe, stages=(replace(stage, average_net=0),)))
    with pytest.raises(ValueError, match="'last'"):
        ship._check(replace(recipe, network="last"))
    with pytest.raises(ValueError, match="no extra stage"):
        ship._check(replace(recipe, extra={"games": 1}))
    with pytest.raises(ValueError, match="needs network 'average'"):
        ship._check(replace(recipe, network="policy"))
    with pytest.raises(ValueError, match=r"pool_seeds must differ .* got \[2, 2\]"):
        ship._check(replace(recipe, pool_seeds=(2, 2)))
    with pytest.raises(ValueError, match=r"pool_seeds must differ .* seed 1, got \[1\]"):
        ship._check(replace(recipe, pool_seeds=(stage.seed,)))
    with pytest.raises(ValueError, match="pool_seeds must be a list of seeds"):
        ship._check(replace(recipe, pool_seeds=("2",)))


def test_the_three_player_scratch_recipe_trains_shrunk_and_is_judged_at_three_seats(
        tmp_path, monkeypatch, capsys):
    """``blind_auction-3p-scratch``'s own stage, shrunk to a few hundred steps: the league
    (itself and its snapshots by their argmax) at three seats trains and ships its average
    network, sampling; its evaluations in training seat each eval bot once beside the fill,
    and its final match seats it with two copies of each judge bot and at the mixed tables,
    no edge a third of the wins."""
    name = "blind_auction-3p-scratch"
    recipe = ship.RECIPES[name]
    assert recipe.preset == "3p" and recipe.sample and not recipe.ships
    assert recipe.network == "average"
    (stage,) = recipe.stages
    assert "greedy" in stage.opponents and stage.average_net > 0
    assert stage.eval_fill == recipe.judge_fill == "random"
    tiny = replace(stage, steps=256, n_games=4, n_steps=16, batch_size=32, n_epochs=1,
                   net=(8,), eval_every=256, eval_deals=1, checkpoint_every=128,
                   snapshot_every=64, average_net=64, torch_threads=1)
    monkeypatch.chdir(tmp_path)
    assert recipe.pool_seeds  # pooling is the two-player test's: one run here
    monkeypatch.setitem(ship.RECIPES, name, replace(
        recipe, stages=(tiny,), judge_bots=("blind_auction/mirror", "random"), pool_seeds=()))
    path = ship.bot_path(name)
    assert ship.train(name, path) == 0
    run = ship.run_dir(name)
    assert path.read_bytes() == (run / "average.onnx").read_bytes()
    for record in read_evals(run):
        for bot, result in record["results"].items():
            assert result["fill"] == "random" and result["games"] == 3
            (table,) = (run / "evals" / f"step-{record['step']:09d}").glob(
                f"{bot.replace('/', '_')}+random/summary.json")
            assert json.loads(table.read_text())["config"]["bots"][1:] == [bot, "random"]
    final = ship.judge(name, path, 1, 1, False)
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["sample"] is True and card["training"]["steps"] >= 256
    for result in final["results"].values():
        assert result["no_edge_win"] == pytest.approx(1 / 3) and result["games"] == 3
    # the mixed tables: the bot, one judge bot and the fill (random) in the third seat; the
    # fill is not also judged against itself
    assert recipe.judge_fill == "random"
    assert list(final["mixed_results"]) == ["blind_auction/mirror"]
    mixed = final["mixed_results"]["blind_auction/mirror"]
    assert mixed["fill"] == "random" and mixed["games"] == 3
    assert card["final_evaluation"]["mixed_results"] == final["mixed_results"]
    (table,) = ship.run_dir(name).glob("final-*/blind_auction_mirror+random/summary.json")
    assert json.loads(table.read_text())["config"]["bots"] == [
        ship.onnx_spec(path), "blind_auction/mirror", "random"]
    said = capsys.readouterr().out
    assert "vs 2x blind_auction/mirror" in said and "vs blind_auction/mirror and 1x random" in said


@pytest.mark.parametrize("name, preset, seats", [
    ("gin_rummy-seed", "seed", 2), ("gin_rummy-standard", "standard", 2),
    ("gin_rummy-seed-4p-scratch", "seed", 4)])  # 3p: 4p's "like"
def test_the_gin_recipes_from_scratch_train_shrunk_and_are_judged_at_their_seats(
        name, preset, seats, tmp_path, monkeypatch):
    """A Gin Rummy recipe from scratch, one per rules and count, its first stage shrunk: the
    count (the preset's two, or a rule change the run keeps) is the bot's, which is trained
    and exported (the two-player ones, which beat the clones they replaced, into
    checkpoints/, the clones kept as baselines; the others beside their runs) with the
    count in its card, and judged at that many seats: no edge 1/seats."""
    recipe = ship.RECIPES[name]
    stage = recipe.stages[0]
    assert stage.preset == preset and ship.teachers(name) == []
    assert recipe.ships == (seats == 2)
    assert ship.RECIPES[f"gin_rummy-{preset}-clone"].ships
    assert ship.teachers(f"gin_rummy-{preset}-clone") == ["gin_rummy/expert"]
    assert stage.rule_changes == ({} if seats == 2 else {"num_players": seats})
    assert f"at {seats} players" in recipe.summary
    tiny = replace(stage, steps=128, n_games=4, n_steps=16, batch_size=32, n_epochs=1,
                   net=(8,), eval_every=128, eval_deals=1, checkpoint_every=64,
                   snapshot_every=64, torch_threads=1, max_hands=2)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(ship.RECIPES, name, replace(recipe, stages=(tiny,),
                                                    judge_bots=("random",)))
    path = ship.bot_path(name)
    assert path.parent == (ship.CHECKPOINTS if recipe.ships else ship.run_dir(name))
    assert ship.train(name, path) == 0
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["num_players"] == seats and card["rules"]["num_players"] == seats
    final = ship.judge(name, path, 1, 1, False)
    (result,) = final["results"].values()
    assert result["no_edge_win"] == pytest.approx(1 / seats) and result["games"] == seats
