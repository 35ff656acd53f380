"""Speed of the Blind Auction engine and PettingZoo envs, beside OpenSpiel's C++ ``goofspiel``.

    python -m benchmarks.bench_blind_auction [--seconds 3] [--only ours|openspiel] [--json PATH]

Every row plays uniformly random legal bids on one pinned core and reports
games and agent steps (bids) per second. OpenSpiel's goofspiel is the same
game family (13 cards, a hidden bid each round, prize cards), run with
``imp_info=True, num_cards=13, points_order=random`` (there the prize is shown
before the bids; here it stays face down until the round resolves).
"""

from __future__ import annotations

import sys

from benchmarks.common import (
    NOT_INSTALLED,
    SEED_BASE,
    Peer,
    bar_line,
    bar_lines,
    batched_ticks,
    bots_episode,
    engine_episode,
    env_episode,
    openspiel_episode,
    package_version,
)
from benchmarks.common import main as bench_main
from benchmarks.timing import RandomPicks, RowSpec
from cardrl import agents
from cardrl.envs.batched import BatchedGames
from cardrl.envs.blind_auction import BlindAuctionState, env, get_rules, parallel_env
from cardrl.envs.blind_auction.actions import NUM_ACTIONS
from cardrl.envs.blind_auction.infostate import OBS_SIZE, encode
from cardrl.envs.encoding import mask_function

action_mask = mask_function(NUM_ACTIONS)

OS_PARAMS = {"imp_info": True, "num_cards": 13, "points_order": "random"}

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] observation (the env's incremental observer, equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask - then legal = obs['action_mask'].nonzero()[0] and step(random "
           "legal). A game is 13 rounds: 26 bids for 2 players, 39 for 3; the dead steps "
           "(last() + step(None) per agent) after the game are timed but not counted.",
    "parallel": "the Parallel API loop: reset(seed), then while agents: step({{agent: random "
                "legal from its own obs mask}}); every step returns every agent's observation "
                "and mask. Steps counted are bids (agents x rounds), as in the other rows.",
    "engine": "BlindAuctionState alone: BlindAuctionState(rules, seed) shuffles the prizes, then "
              "legal_actions() and apply(random legal) until the game is over. No view, no "
              "observation.",
    "engine_obs": "what the env does per step without the PettingZoo layer: legal_actions(), "
                  "encode(state.view(player to bid)), action_mask(legal), apply(random legal).",
    "bots": "BlindAuctionState with agents.make('blind_auction/mirror') in every seat choosing "
            "each bid from state.view(seat) and legal_actions(): what a rule-bot decision costs.",
    "batched": "BatchedGames('blind_auction', 256, num_players=p) served by its compiled "
               "core (envs/blind_auction/compiled.py): per tick one step_games(all 256 games, "
               "actions) with each game's bid uniformly random among the legal ones in "
               "games.masks (a compiled pick, pre-drawn numbers); the float32[{obs}] "
               "observations, bool[{acts}] masks, seats, rewards and dones of all 256 games "
               "written in place, finished games restarted from their next seeds (the prizes "
               "shuffled by numpy's generator replayed in numba). An 'episode' here is 32 "
               "ticks (8,192 agent steps).",
    "batched_python": "the same loop with compiled=False: the Python engines and their "
                      "incremental observers, game by game.",
    "openspiel": "OpenSpiel's C++ goofspiel through pyspiel, {os_params}, a simultaneous-move "
                 "game: per round one chance event turns the prize up (legal_actions + "
                 "apply_action; timed, not counted), then for each of the 2 players "
                 "legal_actions(player) and its observation, and one apply_actions([bid, bid]): "
                 "2 agent steps. Observation: observation_tensor(player) (a new Python list of "
                 "{os_obs} floats), or the numpy route of open_spiel.python.observation "
                 "(set_from() into one float32 buffer, copied to a new array as our env returns "
                 "one), or none.",
    "openspiel_turns": "the same goofspiel wrapped by OpenSpiel's "
                       "turn_based_simultaneous_game (C++), the AEC analogue: the players bid in "
                       "turn; per step legal_actions(), observation_tensor() of the player to "
                       "bid ({os_turn_obs} floats), apply_action(random legal).",
}
BAR = ("ours env() 2p", "ours env() 3p", "openspiel goofspiel +observation_tensor")
BATCHED = 256
BATCHED_BAR = tuple(f"ours BatchedGames x{BATCHED} {p}p" for p in (2, 3))
BATCHED_GOAL = 10.0  # times faster per agent step than OpenSpiel (issue 42)


# --------------------------------------------------------------------- ours
def ours_parallel_episode(players: int, picks: RandomPicks):
    p = parallel_env(num_players=players)
    pick = picks.pick

    def play(i: int) -> int:
        obs, _ = p.reset(seed=SEED_BASE + i)
        steps = 0
        while p.agents:
            actions = {a: int(pick(obs[a]["action_mask"].nonzero()[0])) for a in p.agents}
            obs, _rew, _term, _trunc, _info = p.step(actions)
            steps += len(actions)
        return steps

    return play


def _new_state(players: int):
    rules = get_rules("2p", num_players=players)
    return lambda seed: BlindAuctionState(rules, seed)


def ours_specs() -> list[RowSpec]:
    specs = [RowSpec(f"ours env() {p}p", env_episode(env(num_players=p), RandomPicks(1)), "env")
             for p in (2, 3)]
    specs += [RowSpec(f"ours parallel_env() {p}p", ours_parallel_episode(p, RandomPicks(2)),
                      "parallel") for p in (2, 3)]
    specs += [RowSpec(f"ours engine {p}p", engine_episode(_new_state(p), RandomPicks(3)),
                      "engine") for p in (2, 3)]
    specs += [RowSpec(f"ours engine+view+encode+mask {p}p",
                      engine_episode(_new_state(p), RandomPicks(4), observe=(encode, action_mask)),
                      "engine_obs") for p in (2, 3)]
    specs += [RowSpec(BATCHED_BAR[k], batched_ticks(
        BatchedGames("blind_auction", BATCHED, num_players=p), 7), "batched")
        for k, p in enumerate((2, 3))]
    specs.append(RowSpec(f"ours BatchedGames x{BATCHED} 2p compiled=False", batched_ticks(
        BatchedGames("blind_auction", BATCHED, compiled=False), 8, ticks=2), "batched_python"))
    specs.append(RowSpec("ours engine + 2 x blind_auction/mirror",
                         bots_episode(_new_state(2), [agents.make("blind_auction/mirror", seed=s)
                                                      for s in range(2)]), "bots"))
    return specs


# ---------------------------------------------------------------- OpenSpiel
OPENSPIEL_ROWS = ("openspiel goofspiel +observation_tensor",
                  "openspiel goofspiel +observation (numpy)",
                  "openspiel goofspiel (no observation)",
                  "openspiel goofspiel turn-based +observation_tensor")


def openspiel_simultaneous_episode(game, picks: RandomPicks, observe: str | None):
    pick = picks.pick
    if observe == "numpy":
        from open_spiel.python.observation import make_observation
        observation = make_observation(game)
    players = range(game.num_players())

    def play(_i: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pick(state.legal_actions()))
                continue
            bids = []
            for p in players:
                legal = state.legal_actions(p)
                if observe == "tensor":
                    state.observation_tensor(p)
                elif observe == "numpy":
                    observation.set_from(state, p)
                    observation.tensor.copy()
                bids.append(pick(legal))
            state.apply_actions(bids)
            steps += len(bids)
        return steps

    return play


def openspiel_specs() -> tuple[list[RowSpec], dict, str | None]:
    """The OpenSpiel rows, facts about its game, and why not when it is not installed."""
    try:
        import pyspiel
    except ImportError as err:
        return [], {}, NOT_INSTALLED.format(err)
    game = pyspiel.load_game("goofspiel", OS_PARAMS)
    turns = pyspiel.convert_to_turn_based(game)
    info = {"open_spiel_parameters": OS_PARAMS,
            "open_spiel_observation_size": game.observation_tensor_size(),
            "open_spiel_turn_based_observation_size": turns.observation_tensor_size(),
            **package_version("open_spiel")}
    specs = [RowSpec(name, openspiel_simultaneous_episode(game, RandomPicks(5 + k), observe),
                     "openspiel")
             for k, (name, observe) in enumerate(zip(OPENSPIEL_ROWS[:3], ("tensor", "numpy", None),
                                                     strict=True))]
    specs.append(RowSpec(OPENSPIEL_ROWS[3], openspiel_episode(turns, RandomPicks(9), "tensor"),
                         "openspiel_turns"))
    return specs, info, None


# --------------------------------------------------------------------- main
def footer(facts: dict) -> list[str]:
    out = ["Random choices come from pre-drawn uniform numbers (one multiply and index per "
           "choice) in every row. Every game is 13 rounds (2-player rows: 26 steps a game, "
           "3-player: 39), so compare steps/s and us/step across rows."]
    if facts:
        out.append(f"OpenSpiel {facts.get('open_spiel_version', '?')}")
    return out


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, doc=__doc__, ours=ours_specs,
        peers=[Peer("openspiel", openspiel_specs, OPENSPIEL_ROWS)],
        notes=NOTES,
        fill=lambda facts: {
            "obs": OBS_SIZE, "acts": NUM_ACTIONS, "os_params": OS_PARAMS,
            "os_obs": facts.get("open_spiel_observation_size", "?"),
            "os_turn_obs": facts.get("open_spiel_turn_based_observation_size", "?")},
        bar=lambda rows: bar_lines(bar_line(rows, BAR[:2], BAR[2]),
                                   bar_line(rows, BATCHED_BAR, BAR[2], faster=BATCHED_GOAL)),
        footer=footer, play="bids", step=": one bid")


if __name__ == "__main__":
    sys.exit(main())
