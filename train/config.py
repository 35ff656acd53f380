"""What a training run is: every knob, saved as ``config.json`` beside the run.

Every trainer reads one kind of config: ``RunConfig`` holds what any run has (the
game, its rules and observation, what an episode is, the network, the seed, the run
folder, the evaluations against the rule bots), ``PPOKnobs`` adds PPO's knobs under
SB3's names, and each trainer's config adds its own: ``TrainConfig`` (``cardrl.train.ppo``,
SB3) here, ``RllibConfig`` in ``cardrl.train.rllib``. ``add_run_arguments`` (and
``add_ppo_arguments``) give every trainer's command line the same flags for the same
knobs, and ``from_args`` reads them back. A run is measured in steps, never in wall
time, so a recipe makes the same bot on any machine. ``validate`` checks user input
before anything is built and names the bad value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

from cardrl.envs.files import write_atomic
from cardrl.envs.games import game_names, get_game
from cardrl.eval.config import parse_rule_changes, split_bot_list
from cardrl.train.numpy_policy import ACTIVATIONS
from cardrl.train.opponents import check_bot, parse_mix, rule_bots, strongest_bots

RUNS_DIR = Path("runs")  # every trainer's runs: runs/<name>/
CONFIG_FILE = "config.json"
POLICIES = ("mlp", "card")  # the networks a run may train (RunConfig.policy)
# the PPO knobs a resumed run takes from config.json (train.run --resume may change them)
PPO_KNOBS = ("learning_rate", "clip_range", "ent_coef", "target_kl", "n_epochs", "batch_size",
             "gamma", "gae_lambda")  # (lr_decay, read each update, needs no entry here)


def hidden_sizes(text: str) -> tuple[int, ...]:
    """``--net 256,256`` -> (256, 256), for every trainer's command line."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 256,256, got {text!r}") from None


def check_ints(cfg: Any, keys: Collection[str], least: int) -> None:
    for key in keys:
        value = getattr(cfg, key)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            kind = "a positive" if least else "a non-negative"
            raise ValueError(f"{key} must be {kind} int, got {value!r}")


def check_unit(cfg: Any, keys: Collection[str]) -> None:
    for key in keys:
        value = getattr(cfg, key)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 1:
            raise ValueError(f"{key} must be in (0, 1], got {value!r}")


@dataclass
class RunConfig:
    """What every trainer's run has; a trainer's config subclasses it (``TrainConfig``,
    ``cardrl.train.rllib.RllibConfig``)."""

    TRAINER: ClassVar[str] = ""  # a trainer's tag in default run names ("" for train.ppo)
    COMMAND: ClassVar[str] = "cardrl.train.run"  # the module whose --resume goes on with a run
    # old field names of saved configs -> today's (config.json of older runs still loads)
    RENAMED: ClassVar[dict[str, str]] = {}

    game: str = "spades"
    preset: str | None = None  # None: the game's first preset
    observation: str = "infostate"  # the env's observation kind (envs.encoding): or "features"
    rule_changes: dict[str, Any] = field(default_factory=dict)  # the rules the bot is for
    episode: str = "game"  # "game" or "hand" (docs/rules.md section 5)
    relative_score: bool = False  # reward points minus the others' mean (envs.aec): rank-like
    win_reward: float = 1.0  # paid to the winner at the episode's end (envs.rewards); 0: points
    # a hand's points are paid divided by this (None: the game's scale); 0: no points, the
    # win alone (the game whose equilibrium wins at least half against anyone)
    score_scale: float | None = None
    max_hands: int | None = 40  # safety cap on a training game (untrained self-play may not end)
    steps: int = 200_000  # the run's length, in the trainer's steps (each config says which)
    seed: int = 0
    net: tuple[int, ...] = (256, 256)  # hidden layers of the policy and value MLPs
    activation: str = "tanh"  # a name of train.numpy_policy.ACTIVATIONS
    # "mlp": MLPs over the vector; "card": one card-structured network (train.cardnet)
    policy: str = "mlp"
    card_embed: int = 32  # the card network's per-card embedding size
    eval_every: int = 50_000  # steps between duplicate matches against each eval bot; 0 = never
    eval_deals: int = 8  # deals per match (each in every seat rotation)
    eval_bots: tuple[str, ...] = ()  # () = the game's strongest rule bots (agents.strongest)
    eval_workers: int = 1
    name: str = ""  # run directory runs/<name>; "" = <game>-<preset>[-<trainer>]-s<seed>-<time>

    def __post_init__(self) -> None:
        self.net = tuple(self.net)
        self.eval_bots = tuple(self.eval_bots)

    # ------------------------------------------------------------ derived
    def resolved(self) -> Self:
        """A copy with the defaults that depend on the game filled in."""
        cfg = dataclasses.replace(self)
        if cfg.preset is None:
            cfg.preset = get_game(cfg.game).presets[0]
        if not cfg.eval_bots:
            cfg.eval_bots = tuple(strongest_bots(cfg.game))
        if not cfg.name:
            tag = f"-{self.TRAINER}" if self.TRAINER else ""
            cfg.name = f"{cfg.game}-{cfg.preset}{tag}-s{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
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
                "win_reward": self.win_reward, "score_scale": self.score_scale,
                "observation": self.observation}

    # --------------------------------------------------------- validation
    def validate(self) -> None:
        """Raise a ``ValueError`` naming the first bad knob; a subclass checks its own after."""
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
        check_ints(self, ("steps", "eval_deals", "eval_workers"), 1)
        check_ints(self, ("eval_every", "seed"), 0)
        if not self.net or any(not isinstance(h, int) or h < 1 for h in self.net):
            raise ValueError(f"net must be hidden layer sizes like 256,256, got {self.net!r}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, "
                             f"got {self.activation!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {self.policy!r}")
        if self.policy == "card":
            check_ints(self, ("card_embed",), 1)
            if game.encoder(self.observation).cards is None:
                raise ValueError(f"the {self.observation!r} observation of {self.game} has no "
                                 "card table: use policy 'mlp'")
        if self.episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {self.episode!r}")
        if not isinstance(self.relative_score, bool):
            raise ValueError(f"relative_score must be true or false, got {self.relative_score!r}")
        if isinstance(self.win_reward, bool) or not isinstance(self.win_reward, int | float) \
                or not self.win_reward >= 0:
            raise ValueError(f"win_reward must be a number >= 0, got {self.win_reward!r}")
        if self.score_scale is not None and (
                isinstance(self.score_scale, bool) or not isinstance(self.score_scale, int | float)
                or not self.score_scale >= 0):
            raise ValueError(f"score_scale must be None or a number >= 0, got "
                             f"{self.score_scale!r}")
        if self.score_scale == 0 and self.win_reward == 0:
            raise ValueError("score_scale 0 and win_reward 0 leave no reward at all")
        if self.max_hands is not None and (not isinstance(self.max_hands, int)
                                           or self.max_hands < 1):
            raise ValueError(f"max_hands must be a positive int or None, got {self.max_hands!r}")
        known = set(rule_bots(self.game))
        for bot in self.eval_bots:
            if bot.split(":", 1)[0] not in known:
                raise ValueError(f"eval bot {bot!r} is not a rule bot of {self.game}; "
                                 f"choose from {sorted(known)}")
        if "/" in self.name or self.name.startswith("."):
            raise ValueError(f"a run name is one directory name, got {self.name!r}")

    # -------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, d: dict) -> Self:
        d = {cls.RENAMED.get(k, k): v for k, v in d.items()}
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields {sorted(unknown)}")
        return cls(**d)

    def save(self, run_dir: Path) -> None:
        write_atomic(Path(run_dir) / CONFIG_FILE, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, run_dir: str | Path) -> Self:
        path = Path(run_dir) / CONFIG_FILE
        if not path.is_file():
            raise ValueError(f"no training run at {str(run_dir)!r} (missing {CONFIG_FILE})")
        return cls.from_dict(json.loads(path.read_text()))

    @classmethod
    def load_run(cls, name: str) -> Self:
        """The config of ``runs/<name>``, named ``name`` (a copied run keeps writing to its
        own directory, not to the one its config.json names)."""
        cfg = cls.load(RUNS_DIR / name)
        cfg.name = name
        return cfg

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """A config from a command line built by ``add_run_arguments`` (and the trainer's own
        flags, named as its fields): a flag left at None keeps the field's default."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in vars(args).items() if k in fields and v is not None}
        values["rule_changes"] = parse_rule_changes(args.rule)
        values["max_hands"] = args.max_hands or None
        values["eval_bots"] = tuple(split_bot_list(args.eval_bots)) if args.eval_bots else ()
        return cls(**values)


@dataclass
class PPOKnobs(RunConfig):
    """PPO's knobs, under SB3's names, for every PPO trainer."""

    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    n_epochs: int = 4  # passes over each rollout
    batch_size: int = 512  # minibatch size of each gradient step

    def validate(self) -> None:
        super().validate()
        check_ints(self, ("n_epochs", "batch_size"), 1)
        check_unit(self, ("learning_rate", "gamma", "gae_lambda", "clip_range"))
        if self.ent_coef < 0:
            raise ValueError(f"ent_coef must be >= 0, got {self.ent_coef!r}")


@dataclass
class TrainConfig(PPOKnobs):
    """A run of ``cardrl.train.ppo``: SB3's MaskablePPO over batched self-play. ``steps`` counts
    learner steps (decisions of the learner's seats, all games together)."""

    opponents: str = "self@0.8,snapshot@0.2"  # see train.opponents; self-play by default
    action_head: bool = True  # per-action observation blocks scored onto their actions (policy.py)
    n_games: int = 256  # games played side by side: one learner seat each, one batch per tick
    n_steps: int = 32  # rollout length per game between updates (n_games x n_steps a rollout)
    lr_decay: bool = False  # the learning rate falls linearly to 0 at the run's last step
    critic_warmup: int = 0  # first steps train only the critic (the actor stays put)
    critic_warmup_lr: float = 3e-4  # the critic's learning rate during the warm-up
    target_kl: float | None = None  # stop an update's epochs early past this KL (None = never)
    imitate: str = ""  # a rule bot to clone before PPO (train.imitate); "" = start from random
    imitate_samples: int = 200_000  # teacher decisions collected for the clone
    imitate_epochs: int = 10
    imitate_balance: float = 0.0  # weight rare teacher moves up: count^-balance (imitate.py)
    checkpoint_every: int = 20_000
    snapshot_every: int = 50_000  # frozen copies of the policy join the opponent pool
    max_snapshots: int = 10
    max_average: int = 50  # the ``average`` entry: a reservoir sample of every snapshot so far
    magnet_coef: float = 0.0  # charge each learner move coef * log(pi / magnet); 0 = off
    magnet_every: int = 100_000  # steps between replacing the magnet by the current policy
    exploit_every: int = 0  # steps between exact exploitability measures (Game.exploitability)
    # decisions of the snapshots' mix that one network is fitted to (train.average: NFSP's
    # average network), exported as average.onnx at the end and measured beside the mix at
    # each exploitability measure; 0 = none
    average_net: int = 0
    torch_threads: int = 0  # 0 = every core: collection and updates take turns, never overlap

    def threads(self) -> int:
        return self.torch_threads or max(1, os.cpu_count() or 1)

    def validate(self) -> None:
        super().validate()
        check_ints(self, ("n_games", "n_steps", "checkpoint_every", "max_snapshots",
                           "imitate_samples", "imitate_epochs", "max_average", "magnet_every"), 1)
        check_ints(self, ("snapshot_every", "torch_threads", "critic_warmup", "exploit_every",
                          "average_net"), 0)
        check_unit(self, ("critic_warmup_lr",))
        if isinstance(self.magnet_coef, bool) or not isinstance(self.magnet_coef, int | float) \
                or not self.magnet_coef >= 0:
            raise ValueError(f"magnet_coef must be a number >= 0, got {self.magnet_coef!r}")
        if self.exploit_every:
            game = get_game(self.game)
            if game.exploitability is None:
                raise ValueError(f"exploit_every: {self.game} declares no exact exploitability "
                                 "(Game.exploitability)")
            preset = self.preset if self.preset is not None else game.presets[0]
            game.exploitability(game.get_rules(preset, **self.env_rule_changes()),
                                game.encoder(self.observation), [])  # raises naming the rules
        if self.policy == "card" and self.critic_warmup:
            raise ValueError("critic_warmup holds an MLP actor; the card policy shares one "
                             "network between actor and critic")
        if self.average_net and not self.snapshot_every:
            raise ValueError("average_net fits the snapshots' mix: it needs snapshot_every > 0")
        if self.policy == "card" and self.magnet_coef:
            raise ValueError("the magnet is the MLP policy's numpy copy: magnet_coef needs "
                             "policy 'mlp'")
        if not isinstance(self.lr_decay, bool):
            raise ValueError(f"lr_decay must be true or false, got {self.lr_decay!r}")
        if self.target_kl is not None and not (isinstance(self.target_kl, int | float)
                                               and self.target_kl > 0):
            raise ValueError(f"target_kl must be positive or None, got {self.target_kl!r}")
        if not isinstance(self.imitate_balance, int | float) or not 0 <= self.imitate_balance <= 1:
            raise ValueError(f"imitate_balance must be in [0, 1], got {self.imitate_balance!r}")
        parse_mix(self.opponents, self.game)
        if self.imitate:
            check_bot(self.imitate, self.game, role="teacher")


# ----------------------------------------------------------------- command lines
def add_knob(p: argparse.ArgumentParser, d: RunConfig, tunable: Collection[str], flag: str,
             kind: Any, name: str, text: str = "", **kw: Any) -> None:
    """The flag of field ``name``; a field in ``tunable`` defaults to None (``cardrl.train.run``:
    given with ``--resume``, it changes the run from there)."""
    if name in tunable:
        note = f"(default {getattr(d, name)}; with --resume: changes the run)"
        p.add_argument(flag, dest=name, type=kind, default=None,
                       help=f"{text} {note}".strip(), **kw)
    else:
        p.add_argument(flag, dest=name, type=kind, default=getattr(d, name), help=text or None,
                       **kw)


def add_run_arguments(p: argparse.ArgumentParser, d: RunConfig, steps_help: str,
                      tunable: Collection[str] = ()) -> None:
    """The flags of ``RunConfig``, the same in every trainer's command line (``from_args``
    reads them back)."""
    p.add_argument("--game", default=d.game, help="a registered game")
    p.add_argument("--preset", default=None, help="rules preset (default: the game's first)")
    p.add_argument("--observation", default=d.observation, choices=["infostate", "features"],
                   help="what the network reads: the information state (default) or the "
                        "expert's features as well")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change a rules field of the preset (repeatable)")
    add_knob(p, d, tunable, "--episode", str, "episode", choices=["game", "hand"],
             text="what one episode is; a resumed run may switch (warm the critic again)")
    p.add_argument("--relative-score", action="store_true",
                   help="reward a seat's points minus the others' mean (what ranks pay)")
    p.add_argument("--win-reward", type=float, default=d.win_reward,
                   help="reward to the winner at the episode's end (0: points only)")
    p.add_argument("--score-scale", type=float, default=d.score_scale,
                   help="a hand's points are rewarded divided by this (default: the game's "
                        "scale); 0: no points, the win alone")
    p.add_argument("--max-hands", type=int, default=d.max_hands,
                   help="safety cap on hands per training game; 0 = none")
    p.add_argument("--steps", type=int, default=d.steps, help=steps_help)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--net", type=hidden_sizes, default=d.net,
                   help="hidden layer sizes, e.g. 256,256")
    p.add_argument("--activation", default=d.activation, choices=sorted(ACTIVATIONS))
    p.add_argument("--policy", default=d.policy, choices=list(POLICIES),
                   help="mlp: MLPs over the vector; card: one card-structured network that "
                        "reads every card through a shared embedding (train.cardnet)")
    p.add_argument("--card-embed", type=int, default=d.card_embed,
                   help="the card network's per-card embedding size")
    add_knob(p, d, tunable, "--eval-every", int, "eval_every",
             text="steps between duplicate matches against each eval bot; 0 = never")
    add_knob(p, d, tunable, "--eval-deals", int, "eval_deals")
    p.add_argument("--eval-bots", default="",
                   help="comma-separated rule bots to evaluate against (default: the strongest)")
    p.add_argument("--eval-workers", type=int, default=d.eval_workers)
    p.add_argument("--name", default="", help=f"run directory {RUNS_DIR}/<name>")


def add_ppo_arguments(p: argparse.ArgumentParser, d: PPOKnobs,
                      tunable: Collection[str] = ()) -> None:
    """The flags of ``PPOKnobs``, the same in every PPO trainer's command line."""
    for flag, kind, name in (("--lr", float, "learning_rate"), ("--gamma", float, "gamma"),
                             ("--gae-lambda", float, "gae_lambda"),
                             ("--ent-coef", float, "ent_coef"),
                             ("--clip-range", float, "clip_range"),
                             ("--n-epochs", int, "n_epochs")):
        add_knob(p, d, tunable, flag, kind, name)
    add_knob(p, d, tunable, "--batch-size", int, "batch_size",
             text="minibatch size of each gradient step")
