"""What a training run is: every knob, saved as ``config.json`` beside the run.

A run is fully described by a ``TrainConfig``; ``train.run`` builds one from its
command line and ``--resume`` reads it back. A run is measured in learner steps,
never in wall time, so a recipe makes the same bot on any machine. ``validate``
checks user input before anything is built and names the bad value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.games import game_names, get_game
from train.opponents import check_bot, parse_mix, rule_bots, strongest_bots

RUNS_DIR = Path("runs")
# the PPO knobs a resumed run takes from config.json (train.run --resume may change them)
PPO_KNOBS = ("learning_rate", "clip_range", "ent_coef", "target_kl", "n_epochs", "batch_size",
             "gamma", "gae_lambda")  # (lr_decay, read each update, needs no entry here)
CONFIG_FILE = "config.json"


def hidden_sizes(text: str) -> tuple[int, ...]:
    """``--net 256,256`` -> (256, 256), for every trainer's command line."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 256,256, got {text!r}") from None


@dataclass
class TrainConfig:
    game: str = "spades"
    preset: str | None = None  # None: the game's first preset
    observation: str = "infostate"  # the env's observation kind (envs.encoding): or "features"
    rule_changes: dict[str, Any] = field(default_factory=dict)  # the rules the bot is for
    steps: int = 200_000  # learner steps (decisions of the learner's seats, all games together)
    seed: int = 0
    opponents: str = "self@0.8,snapshot@0.2"  # see train.opponents; self-play by default
    net: tuple[int, ...] = (256, 256)  # hidden layers of the policy and value MLPs
    activation: str = "tanh"
    action_head: bool = True  # per-action observation blocks scored onto their actions (policy.py)
    n_games: int = 256  # games played side by side: one learner seat each, one batch per tick
    n_steps: int = 32  # rollout length per game between updates (n_games x n_steps a rollout)
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3e-4
    lr_decay: bool = False  # the learning rate falls linearly to 0 at the run's last step
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    critic_warmup: int = 0  # first steps train only the critic (the actor stays put)
    critic_warmup_lr: float = 3e-4  # the critic's learning rate during the warm-up
    target_kl: float | None = None  # stop an update's epochs early past this KL (None = never)
    episode: str = "game"  # "game" or "hand" (docs/rules.md section 5)
    relative_score: bool = False  # reward points minus the others' mean (envs.aec): rank-like
    win_reward: float = 1.0  # paid to the winner at the episode's end (envs.rewards); 0: points
    imitate: str = ""  # a rule bot to clone before PPO (train.imitate); "" = start from random
    imitate_samples: int = 200_000  # teacher decisions collected for the clone
    imitate_epochs: int = 10
    imitate_balance: float = 0.0  # weight rare teacher moves up: count^-balance (imitate.py)
    max_hands: int | None = 40  # safety cap on a training game (untrained self-play may not end)
    eval_every: int = 50_000  # steps between duplicate matches against each rule bot; 0 = never
    eval_deals: int = 8  # deals per match (each in every seat rotation)
    eval_bots: tuple[str, ...] = ()  # () = the game's strongest rule bots (agents.strongest)
    eval_workers: int = 1
    checkpoint_every: int = 20_000
    snapshot_every: int = 50_000  # frozen copies of the policy join the opponent pool
    max_snapshots: int = 10
    max_average: int = 50  # the ``average`` entry: a reservoir sample of every snapshot so far
    magnet_coef: float = 0.0  # charge each learner move coef * log(pi / magnet); 0 = off
    magnet_every: int = 100_000  # steps between replacing the magnet by the current policy
    exploit_every: int = 0  # steps between exact exploitability measures (Game.exploitability)
    torch_threads: int = 0  # 0 = every core: collection and updates take turns, never overlap
    name: str = ""  # run directory runs/<name>; "" = <game>-<preset>-s<seed>-<time>

    def __post_init__(self) -> None:
        self.net = tuple(self.net)
        self.eval_bots = tuple(self.eval_bots)

    # ------------------------------------------------------------ derived
    def resolved(self) -> TrainConfig:
        """A copy with the defaults that depend on the game filled in."""
        cfg = dataclasses.replace(self)
        if cfg.preset is None:
            cfg.preset = get_game(cfg.game).presets[0]
        if not cfg.eval_bots:
            cfg.eval_bots = tuple(strongest_bots(cfg.game))
        if not cfg.name:
            cfg.name = f"{cfg.game}-{cfg.preset}-s{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        return cfg

    @property
    def run_dir(self) -> Path:
        return RUNS_DIR / self.name

    def env_rule_changes(self) -> dict[str, Any]:
        changes = dict(self.rule_changes)
        if self.max_hands is not None:
            changes["max_hands"] = self.max_hands
        return changes

    def env_options(self) -> dict[str, Any]:
        return {"episode": self.episode, "relative_score": self.relative_score,
                "win_reward": self.win_reward, "observation": self.observation}

    def threads(self) -> int:
        return self.torch_threads or max(1, os.cpu_count() or 1)

    # --------------------------------------------------------- validation
    def validate(self) -> None:
        if self.game not in game_names():
            raise ValueError(f"unknown game {self.game!r}; choose from {game_names()}")
        game = get_game(self.game)
        preset = self.preset if self.preset is not None else game.presets[0]
        if preset not in game.presets:
            raise ValueError(f"unknown preset {preset!r} for {self.game}; "
                             f"choose from {list(game.presets)}")
        game.encoder(self.observation)  # raises naming the kinds
        if "max_hands" in self.rule_changes:
            raise ValueError("give the training hand cap with --max-hands, not as a rule change")
        game.get_rules(preset, **self.env_rule_changes())  # raises on a bad rule change
        for key in ("steps", "n_games", "n_steps", "batch_size", "n_epochs", "eval_deals",
                    "eval_workers", "checkpoint_every", "max_snapshots", "imitate_samples",
                    "imitate_epochs", "max_average", "magnet_every"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{key} must be a positive int, got {value!r}")
        for key in ("eval_every", "snapshot_every", "torch_threads", "seed", "critic_warmup",
                    "exploit_every"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{key} must be a non-negative int, got {value!r}")
        if not self.net or any(not isinstance(h, int) or h < 1 for h in self.net):
            raise ValueError(f"net must be hidden layer sizes like 256,256, got {self.net!r}")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"activation must be tanh or relu, got {self.activation!r}")
        if self.episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {self.episode!r}")
        if not isinstance(self.lr_decay, bool):
            raise ValueError(f"lr_decay must be true or false, got {self.lr_decay!r}")
        if not isinstance(self.relative_score, bool):
            raise ValueError(f"relative_score must be true or false, got {self.relative_score!r}")
        if self.max_hands is not None and (not isinstance(self.max_hands, int)
                                           or self.max_hands < 1):
            raise ValueError(f"max_hands must be a positive int or None, got {self.max_hands!r}")
        for key in ("learning_rate", "critic_warmup_lr", "gamma", "gae_lambda", "clip_range"):
            if not 0 < getattr(self, key) <= 1:
                raise ValueError(f"{key} must be in (0, 1], got {getattr(self, key)!r}")
        if self.target_kl is not None and not (isinstance(self.target_kl, int | float)
                                               and self.target_kl > 0):
            raise ValueError(f"target_kl must be positive or None, got {self.target_kl!r}")
        if not isinstance(self.imitate_balance, int | float) or not 0 <= self.imitate_balance <= 1:
            raise ValueError(f"imitate_balance must be in [0, 1], got {self.imitate_balance!r}")
        if self.ent_coef < 0:
            raise ValueError(f"ent_coef must be >= 0, got {self.ent_coef!r}")
        for key in ("magnet_coef", "win_reward"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"{key} must be a number >= 0, got {value!r}")
        if self.exploit_every:
            if game.exploitability is None:
                raise ValueError(f"exploit_every: {self.game} declares no exact exploitability "
                                 "(Game.exploitability)")
            game.exploitability(game.get_rules(preset, **self.env_rule_changes()),
                                game.encoder(self.observation), [])  # raises naming the rules
        parse_mix(self.opponents, self.game)
        if self.imitate:
            check_bot(self.imitate, self.game, role="teacher")
        known = set(rule_bots(self.game))
        for bot in self.eval_bots:
            if bot.split(":", 1)[0] not in known:
                raise ValueError(f"eval bot {bot!r} is not a rule bot of {self.game}; "
                                 f"choose from {sorted(known)}")
        if "/" in self.name or self.name.startswith("."):
            raise ValueError(f"a run name is one directory name, got {self.name!r}")

    # -------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["net"], d["eval_bots"] = list(self.net), list(self.eval_bots)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown training config fields {sorted(unknown)}")
        return cls(**d)

    def save(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        tmp = run_dir / (CONFIG_FILE + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        os.replace(tmp, run_dir / CONFIG_FILE)

    @classmethod
    def load(cls, run_dir: str | Path) -> TrainConfig:
        path = Path(run_dir) / CONFIG_FILE
        if not path.is_file():
            raise ValueError(f"no training run at {str(run_dir)!r} (missing {CONFIG_FILE})")
        return cls.from_dict(json.loads(path.read_text()))

    @classmethod
    def load_run(cls, name: str) -> TrainConfig:
        """The config of ``runs/<name>``, named ``name`` (a copied run keeps writing to its
        own directory, not to the one its config.json names)."""
        cfg = cls.load(RUNS_DIR / name)
        cfg.name = name
        return cfg
