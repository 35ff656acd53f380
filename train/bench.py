"""Training throughput per game: raw env, single-seat wrapper, and the PPO loop (1 and 2 envs).

    python -m train.bench                 # every ready game
    python -m train.bench --game spades --ppo-steps 8192

Rows: the raw AEC env with random moves (agent steps/s, every seat); the
single-seat wrapper with policy opponents (learner steps/s; each includes the
opponents' moves and their numpy network); MaskablePPO's ``learn`` with 1 and
with 2 env processes (learner steps/s over wall time, updates included), split
into time waiting for the envs, time in the policy forward pass and rollout
buffer, and time in gradient updates. Rates on a shared machine vary with its
load, so the load average is printed with the table.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.timing import format_table, time_row
from envs.games import get_game
from train.config import TrainConfig
from train.games import ready_games

CAP = {"max_hands": 5}


def raw_env_row(game: str, seconds: float):
    env = get_game(game).env(**CAP)
    rng = np.random.default_rng(0)

    def play(i: int) -> int:
        env.reset(seed=abs(i))
        steps = 0
        agent = env.agent_selection
        while not env.terminations[agent]:
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            agent = env.agent_selection
        return steps

    return time_row(f"{game}: raw env, random moves", play, seconds, "agent steps, all seats")


def wrapper_row(game: str, seconds: float, net: tuple[int, ...]):
    from train.numpy_policy import NumpyPolicy
    from train.single_seat import SingleSeatEnv

    env = SingleSeatEnv(game, None, "self@1", rule_changes=CAP)
    rng = np.random.default_rng(0)
    sizes = [env.observation_space.shape[0], *net, env.action_space.n]
    env.set_policy(NumpyPolicy([(rng.normal(size=(o, i)) * 0.1, np.zeros(o))
                                for i, o in zip(sizes, sizes[1:], strict=False)], "tanh"))

    def play(i: int) -> int:
        env.reset(seed=abs(i))
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            done = env.step(int(legal[rng.integers(len(legal))]))[2]
            steps += 1
        return steps

    return time_row(f"{game}: single-seat wrapper", play, seconds,
                    "learner steps; opponents: numpy self-play net")


def ppo_row(game: str, n_envs: int, steps: int, net: tuple[int, ...]) -> dict:
    """Wall-clock rate of MaskablePPO.learn and where its time goes."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from train.trainer import make_vec_env, new_model

    class Timed(VecEnvWrapper):
        env_s = 0.0

        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            t = time.perf_counter()
            out = self.venv.step_wait()
            Timed.env_s += time.perf_counter() - t
            return out

        def step_async(self, actions):
            t = time.perf_counter()
            self.venv.step_async(actions)
            Timed.env_s += time.perf_counter() - t

    class Phases(BaseCallback):
        rollout_s = 0.0

        def _on_rollout_start(self):
            self._t = time.perf_counter()

        def _on_rollout_end(self):
            Phases.rollout_s += time.perf_counter() - self._t

        def _on_step(self):
            return True

    cfg = TrainConfig(game=game, n_envs=n_envs, net=net, n_steps=max(64, 1024 // n_envs),
                      batch_size=256, max_hands=CAP["max_hands"], opponents="self@1",
                      torch_threads=1, name="bench").resolved()
    torch.set_num_threads(cfg.threads())
    env = Timed(make_vec_env(cfg, seed=0))
    model = new_model(cfg, env)
    model.tensorboard_log = None
    model.learn(cfg.n_steps * n_envs)  # warm-up: worker start, first allocations
    Timed.env_s = Phases.rollout_s = 0.0
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=True, callback=Phases())
    wall = time.perf_counter() - start
    env.close()
    rollout = Phases.rollout_s
    return {"row": f"{game}: MaskablePPO, {n_envs} env{'s' * (n_envs > 1)}",
            "steps": model.num_timesteps, "wall": wall, "rate": model.num_timesteps / wall,
            "env": Timed.env_s / wall, "policy": (rollout - Timed.env_s) / wall,
            "update": (wall - rollout) / wall}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.bench", description=__doc__.splitlines()[0])
    p.add_argument("--game", action="append", help="a game (repeatable; default: all ready)")
    p.add_argument("--seconds", type=float, default=3.0, help="per raw/wrapper row")
    p.add_argument("--ppo-steps", type=int, default=4096, help="learner steps per PPO row")
    p.add_argument("--net", default="256,256")
    args = p.parse_args(argv)
    net = tuple(int(x) for x in args.net.split(","))
    games = args.game or ready_games()
    rows, ppo = [], []
    for game in games:
        rows += [raw_env_row(game, args.seconds), wrapper_row(game, args.seconds, net)]
        ppo += [ppo_row(game, n, args.ppo_steps, net) for n in (1, 2)]
    print(format_table(rows))
    print(f"\nMaskablePPO (net {args.net}, self-play opponents, 1024 steps per update, "
          f"batch 256, {TrainConfig.n_epochs} epochs, 1 torch thread); share of wall time:")
    print(f"{'row':<34} {'steps':>7} {'wall s':>7} {'steps/s':>8} {'envs':>6} "
          f"{'policy':>7} {'update':>7}")
    for r in ppo:
        print(f"{r['row']:<34} {r['steps']:>7,} {r['wall']:>7.1f} {r['rate']:>8,.0f} "
              f"{r['env']:>6.0%} {r['policy']:>7.0%} {r['update']:>7.0%}")
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
