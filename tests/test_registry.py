"""The PettingZoo and Gymnasium registries: every game's ids, made by ``make``, whatever the
import order, at the version CHANGELOG.md records."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test

import cardrl  # noqa: F401 - registers the games with PettingZoo
from cardrl.envs.games import GAMES, get_game
from cardrl.envs.registry import env_id, split_env_name

ROOT = Path(__file__).resolve().parents[1]


def changelog_version(name: str) -> int:
    """The newest version of env ``name`` that CHANGELOG.md mentions (``name_vN``)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = [int(v) for v in re.findall(rf"\b{re.escape(name)}_v(\d+)\b", text)]
    assert versions, f"CHANGELOG.md never mentions {name}_vN"
    return max(versions)


@pytest.mark.parametrize("game", GAMES)
def test_the_declared_version_is_the_changelogs_and_names_the_id(game):
    name, version = split_env_name(get_game(game).env_name)
    assert name == game
    assert version == changelog_version(name)
    assert env_id(game) == f"cardrl/{game}-v{version}"


def test_split_env_name_refuses_a_name_without_a_version():
    with pytest.raises(ValueError, match="'spades4'"):
        split_env_name("spades4")


@pytest.mark.parametrize("game", GAMES)
def test_make_gives_the_games_env_that_passes_the_api_test(game):
    declaration = get_game(game)
    e = pettingzoo.make("aec", env_id(game), preset=declaration.presets[-1], episode="hand")
    assert type(e) is type(declaration.env())
    assert e.rules == declaration.make_rules(declaration.presets[-1])
    assert e.metadata["name"] == declaration.env_name
    api_test(e, num_cycles=60)
    # PettingZoo's id spellings: the underscore version and no version (the newest)
    same = pettingzoo.make("aec", f"cardrl/{declaration.env_name}")
    latest = pettingzoo.make("aec", f"cardrl/{game}")
    assert type(same) is type(latest) is type(e)


def test_every_game_with_a_parallel_env_is_in_the_parallel_registry():
    parallel = [g for g in GAMES if get_game(g).parallel]
    assert parallel, "no game declares a parallel env"
    for game in GAMES:
        module = __import__(f"cardrl.envs.{game}.environment", fromlist=["*"])
        assert hasattr(module, "parallel_env") == get_game(game).parallel, game
        if game not in parallel:
            with pytest.raises(pettingzoo.env_registry.exceptions.NameNotFound):
                pettingzoo.make("parallel", env_id(game))
    for game in parallel:
        e = pettingzoo.make("parallel", env_id(game), num_players=3)
        assert type(e) is type(module.parallel_env()) and len(e.possible_agents) == 3
        parallel_api_test(e, num_cycles=60)


def test_a_wrong_version_or_option_is_refused_by_name():
    game = GAMES[0]
    _, version = split_env_name(get_game(game).env_name)
    with pytest.raises(pettingzoo.env_registry.exceptions.VersionNotFound, match=f"v{version}"):
        pettingzoo.make("aec", f"cardrl/{game}-v{version + 1}")
    with pytest.raises(ValueError, match="no_such_field"):
        pettingzoo.make("aec", env_id(game), no_such_field=1)


IMPORT_ORDERS = {
    "cardrl first": "import cardrl, pettingzoo",
    "pettingzoo first": "import pettingzoo, gymnasium, cardrl",
    "the env layer": "import cardrl.envs, pettingzoo",
    "a game's env module": f"import cardrl.envs.{GAMES[-1]}.environment, pettingzoo",
    "the single-seat env": "import cardrl.agents.single_seat, gymnasium, pettingzoo",
}


@pytest.mark.parametrize("imports", IMPORT_ORDERS.values(), ids=IMPORT_ORDERS.keys())
def test_every_id_is_registered_whatever_the_import_order_and_without_import_hooks(imports):
    """Any import of cardrl registers every id, as Gymnasium's add-ons do, with no finder
    left on ``sys.meta_path``; run outside the checkout (cwd), so only the package counts."""
    code = textwrap.dedent(f"""
        import sys, warnings
        warnings.simplefilter("error")
        finders = list(sys.meta_path)
        {imports}
        import gymnasium
        gymnasium.register_envs(cardrl)
        print(sorted(i for i in pettingzoo.aec_registry if i.startswith("cardrl/")))
        print(sorted(i for i in pettingzoo.parallel_registry if i.startswith("cardrl/")))
        print(sorted(i for i in gymnasium.registry if i.startswith("cardrl/")))
        print(sys.meta_path == finders)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT / "tests", check=True).stdout.splitlines()
    from cardrl.envs.registry import gym_id

    assert out[0] == str(sorted(env_id(g) for g in GAMES))
    assert out[1] == str(sorted(env_id(g) for g in GAMES if get_game(g).parallel))
    assert out[2] == str(sorted(gym_id(g) for g in GAMES))
    assert out[3] == "True"
