"""Every compiled core (``envs/<game>/compiled.py``) gives exactly what the Python engines give.

Parametrized over the games that have a core, so a new core joins by its place. The
Python path of ``BatchedGames`` (``compiled=False``) is the reference: it is tested
against the PettingZoo env in tests/test_batched.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cardrl.envs import cards, compiled, compiled_rng
from cardrl.envs.batched import BatchedGames
from cardrl.envs.compiled import find_core, sources_digest
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_module, game_names, get_game
from cardrl.envs.rewards import HAND_REWARDS
from cardrl.envs.rules_base import editable_fields
from tests.env_checks import DEAL_OF, examples

CORE_GAMES = [g for g in game_names() if game_module("cardrl.envs", g, "compiled") is not None]
# rules fields a table cannot change, which a core must play too
MORE_RULES = {
    "spades": [("killer", {"first_dealer": None, "max_hands": 3})],
    "gin_rummy": [("seed", {"num_players": 3, "first_dealer": None, "layoff": True,
                            "gin_bonus": 25, "undercut_bonus": 10, "knocker_wins_ties": False,
                            "no_discard_of_taken": False, "dead_stock": 5, "max_moves": 60,
                            "knock_limit": 30, "target": 40})],
    "sevens": [("random", {"num_players": 5, "value_min": 3, "value_max": 3,
                           "second_value_chance": 1.0, "points_min": -2, "points_max": 2}),
               ("random", {"num_players": 3, "values": "1,2,3,4,5,6,7,8,9,9,9,9,0/10",
                           "points_min": 7, "points_max": 7})],
}
CASES = [c for c in examples() if c[0] in CORE_GAMES] + [
    (g, preset, changes) for g in CORE_GAMES for preset, changes in MORE_RULES.get(g, [])]


def test_every_game_with_a_core_serves_its_default_observation():
    assert CORE_GAMES, "no game has a compiled core"
    for name in CORE_GAMES:
        game = get_game(name)
        core, why = find_core(game, game.make_rules(), "infostate")
        assert core is not None, why
        assert BatchedGames(name, 2)._core is not None
        assert BatchedGames(name, 2, compiled=False)._core is None
        with pytest.raises(ValueError, match="compiled must be True or False"):
            BatchedGames(name, 2, compiled="yes")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), size=st.integers(1, 60), draws=st.integers(0, 5))
def test_generators_equal_numpys_default_rng(seed, size, draws):
    """SeedSequence + PCG64 seeding, the 32-bit buffer and permutations, bit for bit."""
    ours, ref = np.zeros(compiled_rng.ROW, np.uint64), np.zeros(compiled_rng.ROW, np.uint64)
    compiled_rng.seed_state(seed, ours, np.zeros(compiled_rng.SCRATCH, np.uint64))
    rng = np.random.default_rng(seed)
    compiled_rng.from_generator(rng, ref)
    assert (ours == ref).all()
    for _ in range(draws + 1):
        out = np.zeros(size, np.int64)
        compiled_rng.permutation(ours, out)
        assert out.tolist() == rng.permutation(size).tolist()
    compiled_rng.from_generator(rng, ref)
    assert (ours == ref).all()
    assert compiled_rng.to_generator(ours).integers(2**62) == rng.integers(2**62)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1) | st.sampled_from([0, 2**32 - 1, 2**32, 2**64 - 1]),
       size=st.integers(1, 52))
def test_shuffled_equals_the_engines_shuffle(seed, size):
    """``compiled_rng.shuffled`` (Blind Auction's prize order) is ``cards.shuffled`` of the
    seed's generator, compiled for a plain int seed, numpy's own for anything else."""
    deck = list(range(100, 100 + size))
    expected = cards.shuffled(deck, np.random.default_rng(seed))
    assert compiled_rng.shuffled(deck, seed) == expected
    assert compiled_rng.shuffled(tuple(deck), np.uint64(seed)) == expected
    assert compiled_rng.shuffled(deck, np.random.default_rng(seed)) == expected
    assert sorted(compiled_rng.shuffled(deck, None)) == deck
    with pytest.raises(ValueError):
        compiled_rng.shuffled(deck, -1 - seed)


def _draw_rules(data, game, preset: str, changes: dict) -> dict:
    """The case's rule changes, and now and then another value of an editable field."""
    out = dict(changes)
    for name, field in editable_fields(game.make_rules(preset, **changes)).items():
        if data.draw(st.integers(0, 3), label=f"change {name}") != 0:
            continue
        if field.choices:
            out[name] = data.draw(st.sampled_from(field.choices), label=name)
        elif field.kind is bool:
            out[name] = data.draw(st.booleans(), label=name)
        else:
            values = st.integers(field.low, min(field.high, field.low + 300))
            out[name] = data.draw(st.none() | values if field.none else values, label=name)
    return out


def _same(fast: BatchedGames, slow: BatchedGames, a, b) -> None:
    assert np.array_equal(a.seats, b.seats)
    assert np.array_equal(a.masks, b.masks)
    assert np.array_equal(a.obs, b.obs)
    assert np.array_equal(a.rewards, b.rewards)  # the same float32 sums, not just close
    assert np.array_equal(a.dones, b.dones)
    assert np.array_equal(a.truncated, b.truncated)
    assert np.array_equal(fast.episode_seeds, slow.episode_seeds)
    assert fast.live == slow.live


def _actions(rng, masks: np.ndarray, illegal_rate: float) -> list[int]:
    out = []
    for m in masks:
        legal = np.flatnonzero(m)
        if not len(legal):
            out.append(0)  # a finished game: ignored
        elif rng.random() < illegal_rate:  # a refused id, or one past the table
            out.append(int(np.flatnonzero(~m)[0]) if not m.all() else len(m))
        else:
            out.append(int(rng.choice(legal)))
    return out


@pytest.mark.parametrize(("game", "preset", "changes"), CASES,
                         ids=["-".join([g, p, *map(str, c.items())]) for g, p, c in CASES])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_core_equals_the_python_engines_step_by_step(game, preset, changes, data):
    """Observations, masks, seats, rewards, dones, seeds and engine states, every step, on
    drawn rules, reward options, given deals, auto-reset or restarts, and illegal actions
    (penalised: the same replacement drawn)."""
    g = get_game(game)
    rule_changes = _draw_rules(data, g, preset, changes)
    try:
        rules = g.make_rules(preset, **rule_changes)
    except ValueError:
        assume(False)
    kinds = [k for k in KINDS if find_core(g, rules, k)[0] is not None]
    penalty = data.draw(st.booleans(), label="penalty")
    options = dict(
        observation=data.draw(st.sampled_from(kinds), label="kind"),
        episode=data.draw(st.sampled_from(["hand", "game"]), label="episode"),
        relative_score=data.draw(st.booleans(), label="relative"),
        hand_reward=data.draw(st.sampled_from(HAND_REWARDS), label="hand_reward"),
        score_scale=data.draw(st.sampled_from([None, 0.0, 3.5]), label="scale"),
        win_reward=data.draw(st.sampled_from([1.0, 0.25]), label="win"),
        max_episode_hands=data.draw(st.sampled_from([None, 1, 2, 100]), label="cap"),
        illegal_action="penalty" if penalty else "raise", illegal_penalty=-0.5,
        auto_reset=data.draw(st.booleans(), label="auto_reset"))
    n = data.draw(st.integers(1, 4), label="games")
    seed = data.draw(st.integers(0, 2**40), label="seed")
    fast = BatchedGames(game, n, preset=preset, **options, **rule_changes)
    slow = BatchedGames(game, n, preset=preset, compiled=False, **options, **rule_changes)
    assert fast._core is not None, fast.python_reason

    def a_deal(k: int):
        given = game in DEAL_OF and data.draw(st.booleans(), label="deal")
        return DEAL_OF[game](g.state(rules, seed + 10**6 + k)) if given else None

    deals = [a_deal(i) for i in range(n)]
    a, b = fast.reset(seed=seed, deals=deals), slow.reset(seed=seed, deals=deals)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32), label="moves"))
    _same(fast, slow, a, b)
    for tick in range(data.draw(st.integers(1, 300), label="ticks")):
        actions = _actions(rng, a.masks, 0.05 if penalty else 0.0)
        held = [(fast.states[i], slow.states[i]) for i in range(n)] if tick % 5 == 0 else []
        idx = range(n)
        if rng.random() < 0.2:  # some games only
            idx = sorted(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).tolist())
            out = [fast.step_games(idx, [actions[i] for i in idx]),
                   slow.step_games(idx, [actions[i] for i in idx])]
            for (rf, df), (rs, ds) in [out]:
                assert np.array_equal(rf, rs) and np.array_equal(df, ds)
            a = a._replace(obs=fast.obs, masks=fast.masks, seats=fast.seats, rewards=rf,
                           dones=df, truncated=df & fast.truncated[idx])
            b = b._replace(obs=slow.obs, masks=slow.masks, seats=slow.seats, rewards=rs,
                           dones=ds, truncated=ds & slow.truncated[idx])
        else:
            a, b = fast.step(actions), slow.step(actions)
        _same(fast, slow, a, b)
        for k in np.flatnonzero(a.dones) if held else ():  # a state held ends with its episode
            i = idx[int(k)]
            assert held[i][0].view(0) == held[i][1].view(0)
        waiting = [i for i in range(n) if not fast.live[i]]
        for i in waiting:  # waits for its restart: give it one, now and then a deal
            restart = (seed + 7 * tick + i, a_deal(n + tick))
            fast.restart(i, *restart)
            slow.restart(i, *restart)
        if waiting:
            a = a._replace(obs=fast.obs.copy(), masks=fast.masks.copy(), seats=fast.seats.copy())
            b = b._replace(obs=slow.obs.copy(), masks=slow.masks.copy(), seats=slow.seats.copy())
            _same(fast, slow, a, b)
        if tick % 37 == 0:
            for i in range(n):
                assert fast.states[i].view(0) == slow.states[i].view(0)
    seats = range(g.num_players(rules))
    for i in range(n):
        assert [fast.states[i].view(s) for s in seats] == [slow.states[i].view(s) for s in seats]


def test_the_spades_core_pays_a_hands_worth_as_the_engine_does():
    """``hand_reward="worth"`` in cutthroat, many hands of random play: the core pays what
    the engine pays (bags charged as made, penalties handed back), and not the points."""
    def rewards(**options) -> np.ndarray:
        games = BatchedGames("spades", 6, preset="cutthroat", relative_score=False,
                             score_scale=1.0, win_reward=0.0, max_episode_hands=4, **options)
        games.reset(seed=3)
        rng, out = np.random.default_rng(3), []
        for _ in range(1500):
            out.append(games.step(_actions(rng, games.masks, 0.0)).rewards.copy())
        return np.array(out)

    fast, slow = rewards(hand_reward="worth"), rewards(hand_reward="worth", compiled=False)
    assert np.array_equal(fast, slow)
    points = rewards()
    # bags still held at an episode's end cost their share: less paid in all
    assert not np.array_equal(fast, points) and fast.sum() < points.sum()


@pytest.mark.parametrize("game", CORE_GAMES)
def test_bad_input_is_refused_naming_it_and_changes_nothing(game):
    games = BatchedGames(game, 3)
    with pytest.raises(RuntimeError, match="before reset"):
        games.step([0, 0, 0])
    batch = games.reset(seed=11)
    core = games._core

    def snapshot():
        return ([x.copy() for x in core.st], [x.copy() for x in core.d],
                [s.view(0) for s in games.states])

    before = snapshot()
    legal = [int(np.flatnonzero(m)[0]) for m in batch.masks]
    illegal = int(next(iter(np.flatnonzero(~batch.masks[1])), games.num_actions))
    for bad, match in (([legal[0], illegal, legal[2]], f"illegal action {illegal} by "
                        f"player_{batch.seats[1]} in game 1"),
                       ([legal[0], legal[1], 10**6], "game 2"), ([legal[0], -1, 0], "game 1"),
                       ([legal[0], True, legal[2]], "True"),
                       ([0.5, legal[1], legal[2]], "0.5"), ([None] * 3, "None")):
        with pytest.raises(ValueError, match=match):
            games.step(bad)
        after = snapshot()
        assert all(np.array_equal(x, y) for x, y in zip(before[0] + before[1],
                                                         after[0] + after[1], strict=True))
        assert before[2] == after[2]
    with pytest.raises(ValueError, match="3 actions"):
        games.step(legal[:2])
    with pytest.raises(ValueError, match="2 games but 3 actions"):
        games.step_games([0, 1], legal)
    for games_given, bad in (([0, 1, 3], 3), ([-1, 0, 1], -1)):
        with pytest.raises(IndexError, match=f"game {bad} out of range"):
            games.step_games(games_given, legal)
    with pytest.raises(ValueError, match="seed"):
        games.restart(0, -1)
    assert np.array_equal(games.step(legal).seats >= 0, [True] * 3)


_CACHE_PROBE = """
import json, numpy as np
from cardrl.envs.batched import BatchedGames
out = {}
for game in %r:
    games = BatchedGames(game, 2)
    batch = games.reset(seed=0)
    games.step([int(np.flatnonzero(m)[0]) for m in batch.masks])
    games.restart(0, 5)
    core = games._core.core
    for name in ("start", "step", "write"):
        stats = getattr(core, name).stats
        out[game + "." + name] = [sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]
print(json.dumps(out))
"""


def test_a_second_process_loads_the_kernels_from_the_cache():
    """numba compiles a core once per machine: the next process finds every kernel on disk."""
    runs = [subprocess.run([sys.executable, "-c", _CACHE_PROBE % (CORE_GAMES,)], check=True,
                           capture_output=True, text=True) for _ in range(2)]
    stats = json.loads(runs[1].stdout)
    assert set(stats) == {f"{g}.{k}" for g in CORE_GAMES for k in ("start", "step", "write")}
    assert all(hits >= 1 and misses == 0 for hits, misses in stats.values()), stats


def test_a_changed_source_drops_every_compiled_function_of_the_core_module(monkeypatch):
    """Some helpers are called, not inlined (a deal, once per hand: one compiled copy for
    every kernel); numba caches them on their own and checks them against their own file
    only, so a changed source drops them with the kernels."""
    called = {}
    for game in CORE_GAMES:
        games = BatchedGames(game, 2)
        batch = games.reset(seed=0)
        games.step([int(np.flatnonzero(m)[0]) for m in batch.masks])
        games.restart(0, 5)
        core = games._core.core
        module = core.start.py_func.__module__
        called[game] = {name for name, f in vars(sys.modules[module]).items()
                        if getattr(getattr(f, "py_func", None), "__module__", None) == module
                        and f.signatures}
        dropped: list = []
        monkeypatch.setattr(compiled, "fresh_kernels",
                            lambda name, source, kernels, into=dropped: into.extend(kernels))
        compiled.fresh(game, core)
        assert called[game] <= {k.py_func.__name__ for k in dropped}, game
        assert {"start", "step", "write"} <= called[game]
    assert any(len(names) > 3 for names in called.values()), called  # some helper is called


def test_warm_compiles_ahead_and_a_changed_source_outside_the_kernels_recompiles(tmp_path):
    """``python -m cardrl.envs.warm GAME`` compiles ahead of time: the next process finds
    every kernel of the core on disk. A kernel inlines code of other files, which numba's
    own check does not see: when the recorded digest of ``envs/`` differs, the next
    process compiles anew, then keeps it. (A cache of its own: another process on the
    shared one could save a kernel between this one's drop and its compile.)"""
    game = CORE_GAMES[0]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def probe() -> dict:
        return json.loads(subprocess.run([sys.executable, "-c", _CACHE_PROBE % ([game],)],
                                         env=env, check=True, capture_output=True,
                                         text=True).stdout)

    out = subprocess.run([sys.executable, "-m", "cardrl.envs.warm", game, "--workers", "1"],
                         env=env, check=True, capture_output=True, text=True).stdout
    assert out.startswith(f"{game}: ") and "compiled kernels ready" in out
    [stamp] = (tmp_path / "cache").glob(f"*/{game}.sources")
    assert stamp.read_text() == sources_digest(game)
    loaded = probe()
    assert all(hits >= 1 and misses == 0 for hits, misses in loaded.values()), loaded
    stamp.write_text("a digest of other sources")
    runs = [probe() for _ in range(2)]
    assert all(misses >= 1 for _, misses in runs[0].values()), runs[0]
    assert all(hits >= 1 and misses == 0 for hits, misses in runs[1].values()), runs[1]
    assert stamp.read_text() == sources_digest(game)
    bad = subprocess.run([sys.executable, "-m", "cardrl.envs.warm", "chess"], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no game 'chess'" in bad.stderr
