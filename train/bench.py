"""Training throughput: learner steps per second of the PPO loop, and where the time goes.

    python -m cardrl.train.bench                          # every game, nets 128,128 and 256,256
    python -m cardrl.train.bench --game spades --steps 65536 --n-games 128

Each row runs ``MaskablePPO.learn`` exactly as ``cardrl.train.ppo`` builds it (batched
self-play: ``n_games`` games in one process, every ``self`` seat decided by one
forward pass per tick; the current policy pushed to those seats before each
rollout), after one warm-up rollout, and splits its time into:

* **envs**: stepping the games and building observations and masks
  (``BatchedGames.step_games``, rule bots' views included);
* **policy**: forward passes: the learner's (SB3's ``collect_rollouts`` around the
  env step, rollout buffer included) and the opponents' (numpy);
* **update**: PPO's gradient epochs (``MaskablePPO.train``).

Beside each row, **limit** is the same network work timed with torch alone on this
machine (``cardrl.train.limit.ppo_limit``: the learner's actor and critic forward at the
rollout batch, one actor forward per opponent seat, PPO's epochs of forward,
backward and Adam in the run's minibatches; no env), timed twice: in this process
(the mean of a timing before and one after the loop) and in a **clean** process of its
own that runs nothing before it. **ratio** is the loop's rate over the in-process
limit, the second **ratio** over the clean one (what the machine allows), and **w/o
envs** the clean ratio the loop would have if stepping the envs took no time (its rate
over the time outside ``envs``): what the rest of the loop (forward passes, VecEnv
plumbing, SB3's rollout buffer and distributions, the update) leaves of the limit.

``--threads 1 --clock cpu`` divides by this process's CPU time with one torch thread:
on a machine shared with other work, that is what stays put from run to run.

Rates over wall time on a shared machine vary with its load, so the load average
and the CPU are printed with the table, and the bars say met or missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence

from stable_baselines3.common.logger import Logger

from cardrl.cli import TRAINING_ENV
from cardrl.envs.games import game_names
from cardrl.train.config import POLICIES, TrainConfig
from cardrl.train.limit import ppo_limit
from cardrl.train.nets import set_threads
from cardrl.train.policy import policy_weights
from cardrl.train.ppo import ThreadPhases, make_env, new_model, selfplay

BARS = {("spades", (128, 128)): 5000, ("spades", (256, 256)): 2500}  # learner steps/s
RATIO_BAR = 0.7  # of the clean torch-alone limit, for the Spades 128,128 row
ENV_SHARE_BAR = 0.15


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


class Clock:
    """Seconds spent inside wrapped methods, by label (nested calls subtract), on ``timer``."""

    def __init__(self, timer=time.perf_counter) -> None:
        self.total: dict[str, float] = {}
        self._inner = 0.0
        self.timer = timer

    def wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)
        clock = self

        def timed(*args, **kwargs):
            outer_inner, clock._inner = clock._inner, 0.0
            t = clock.timer()
            try:
                return original(*args, **kwargs)
            finally:
                spent = clock.timer() - t
                clock.total[label] = clock.total.get(label, 0.0) + spent - clock._inner
                clock._inner = outer_inner + spent

        setattr(owner, name, timed)


def bench_model(game: str, net: tuple[int, ...], n_games: int, n_steps: int, threads: int,
                policy: str = "mlp") -> tuple:
    """The config, model and batched env a row times, as ``cardrl.train.ppo`` builds them."""
    cfg = TrainConfig(game=game, net=net, policy=policy, n_games=n_games, n_steps=n_steps,
                      batch_size=512, opponents="self@1", max_hands=5, torch_threads=threads,
                      name="bench").resolved()
    set_threads(cfg.threads())
    env = make_env(cfg, seed=0)
    model = new_model(cfg, env)
    model.set_logger(Logger(None, []))  # logs nothing (no tensorboard, no /tmp/SB3-* folder)
    return cfg, model, selfplay(env)


def limit_of(model, venv, n_games: int, n_steps: int, seconds: float, timer) -> float:
    return ppo_limit(model.policy, n_games, n_steps, model.batch_size, model.n_epochs,
                     venv.games.num_players - 1, seconds=seconds, timer=timer)


def clean_limit(row: dict, seconds: float) -> float:
    """The row's limit timed in a fresh process that runs nothing else first, with the
    runtime's own thread settings (neither the ``cardrl`` command's ``TRAINING_ENV`` nor an
    OpenMP wait policy): what the machine allows."""
    env = {k: v for k, v in os.environ.items()
           if k not in TRAINING_ENV and k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-m", "cardrl.train.bench", "--clean-limit",
                          json.dumps({**row, "seconds": seconds})],
                         capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip().splitlines()[-1])


def ppo_row(game: str, net: tuple[int, ...], steps: int, n_games: int, n_steps: int,
            threads: int, policy: str = "mlp", clock_name: str = "wall",
            limit_seconds: float = 2.0) -> dict:
    cfg, model, venv = bench_model(game, net, n_games, n_steps, threads, policy)
    timer = CLOCKS[clock_name]
    clock = Clock(timer)
    # instance attributes shadow the class's methods: only this run is timed
    clock.wrap(venv, "step_wait", "envs")
    clock.wrap(venv, "_policy_actions", "policy")
    clock.wrap(model, "collect_rollouts", "policy")
    clock.wrap(model, "train", "update")
    venv.set_policy(policy_weights(model.policy))
    phases = ThreadPhases(cfg.threads())  # the run's threads per phase, as Trainer sets them

    def limit() -> float:
        set_threads(cfg.threads())
        return limit_of(model, venv, n_games, n_steps, limit_seconds / 2, timer)

    before = limit()  # timed before and after the loop: a shared machine's load drifts
    model.learn(n_games * n_steps, callback=phases)  # warm-up: one rollout and update
    clock.total.clear()
    start = timer()
    model.learn(steps, reset_num_timesteps=True, callback=phases)
    wall = timer() - start
    rate = model.num_timesteps / wall
    shares = {k: clock.total.get(k, 0.0) / wall for k in ("envs", "policy", "update")}
    limit = (before + limit()) / 2
    clean = clean_limit({"game": game, "net": list(net), "n_games": n_games,
                         "n_steps": n_steps, "threads": threads, "policy": policy,
                         "clock": clock_name}, limit_seconds)
    return {"game": game, "net": net, "network": policy, "steps": model.num_timesteps,
            "wall": wall, "rate": rate, "limit": limit, "ratio": rate / limit,
            "clean": clean, "clean_ratio": rate / clean,
            "ratio_no_envs": rate / max(1.0 - shares["envs"], 1e-9) / clean, **shares}


def cpu_name() -> str:
    """The CPU's model name as ``lscpu`` says it (the platform's word where it cannot)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="cardrl bench", description=__doc__.splitlines()[0])
    p.add_argument("--game", action="append", choices=game_names(),
                   help="a game (repeatable; default: every game)")
    p.add_argument("--net", action="append", default=None,
                   help="hidden layers like 128,128 (repeatable; default 128,128 and 256,256)")
    p.add_argument("--policy", action="append", choices=list(POLICIES), default=None,
                   help="the network (repeatable; default mlp)")
    p.add_argument("--steps", type=int, default=32768, help="learner steps per row")
    p.add_argument("--n-games", type=int, default=256)
    p.add_argument("--n-steps", type=int, default=32, help="rollout length per game")
    p.add_argument("--threads", type=int, default=0, help="torch threads; 0 = every core")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="time the rates divide by: wall (default) or this process's CPU time "
                        "(with --threads 1: other load on a shared machine does not count)")
    p.add_argument("--clean-limit", default=None, help=argparse.SUPPRESS)  # a row, as JSON
    args = p.parse_args(argv)
    if args.clean_limit:  # this process does nothing but time one row's limit
        row = json.loads(args.clean_limit)
        _, model, venv = bench_model(row["game"], tuple(row["net"]), row["n_games"],
                                     row["n_steps"], row["threads"], row["policy"])
        print(limit_of(model, venv, row["n_games"], row["n_steps"], row["seconds"],
                       CLOCKS[row["clock"]]))
        return 0
    nets = [tuple(int(x) for x in n.split(",")) for n in (args.net or ["128,128", "256,256"])]
    rows = [ppo_row(g, net, args.steps, args.n_games, args.n_steps, args.threads, policy,
                    args.clock)
            for g in (args.game or game_names()) for policy in (args.policy or ["mlp"])
            for net in nets]
    print(f"MaskablePPO, batched self-play: {args.n_games} games, rollout {args.n_steps} per "
          f"game, batch 512, {TrainConfig.n_epochs} epochs, torch threads "
          f"{args.threads or os.cpu_count()}; share of {args.clock} time")
    print(f"{'game':<14} {'network':<13} {'steps':>7} {args.clock + ' s':>7} {'steps/s':>8} "
          f"{'limit':>8} {'ratio':>6} {'clean':>8} {'ratio':>6} {'w/o envs':>8} {'envs':>6} "
          f"{'policy':>7} {'update':>7}  bar")
    for r in rows:
        bar = BARS.get((r["game"], r["net"])) if r["network"] == "mlp" else None
        verdicts = [f"envs {'under' if r['envs'] < ENV_SHARE_BAR else 'over'} "
                    f"{ENV_SHARE_BAR:.0%}"]
        if bar:
            verdicts.insert(0, f"{bar:,}/s {'met' if r['rate'] >= bar else 'missed'}")
            met = "met" if r["clean_ratio"] >= RATIO_BAR else "missed"
            verdicts.insert(1, f"clean ratio {RATIO_BAR} {met}")
        network = f"{r['network']} {','.join(map(str, r['net']))}"
        print(f"{r['game']:<14} {network:<13} {r['steps']:>7,} "
              f"{r['wall']:>7.1f} {r['rate']:>8,.0f} {r['limit']:>8,.0f} {r['ratio']:>6.2f} "
              f"{r['clean']:>8,.0f} {r['clean_ratio']:>6.2f} {r['ratio_no_envs']:>8.2f} "
              f"{r['envs']:>6.0%} {r['policy']:>7.0%} {r['update']:>7.0%}  "
              f"{'; '.join(verdicts)}")
    print("\nlimit: the same network work with torch alone, no env (train.limit), timed in "
          "this process and in a clean one; ratio = steps/s / limit, each; w/o envs: the "
          "clean ratio over the time outside the envs")
    print(f"CPU {cpu_name()}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
