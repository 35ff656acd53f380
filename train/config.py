"""What a training run is: every knob, saved as ``config.json`` beside the run.

One tree of configs: ``RunConfig`` holds what every trainer's run has (the game, its rules
and observation, what an episode is, the network, its learning rate, discount and
minibatch, the seed, the run folder, the evaluations against the rule bots);
``BatchedRunConfig`` adds what a trainer in one process over ``BatchedGames`` has (games
side by side, checkpoints, threads, the rate's decay); ``PPOKnobs`` adds PPO's own knobs
under SB3's names. ``TrainConfig`` (``cardrl.train.ppo``) is both; ``DMCConfig``
(``cardrl.train.dmc``) and ``RllibConfig`` (``cardrl.train.rllib``) each extend one.

Every field is declared by ``knob``, whose metadata holds its help, its flag and whether
``--resume`` may change it: ``add_arguments`` builds any trainer's command line from its
config class, and ``from_args`` and ``resumed_with`` read it back, so no list of field
names is kept by hand. A run is measured in steps, never in wall time, so a recipe makes
the same bot on any machine. ``validate`` checks user input before anything is built and
names the bad value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

from cardrl.envs.batched import BatchedGames, MixedBatchedGames, make_games, mixed_rules
from cardrl.envs.encoding import KINDS
from cardrl.envs.files import write_atomic
from cardrl.envs.games import game_names, get_game
from cardrl.envs.rewards import HAND_REWARDS
from cardrl.eval.config import parse_rule_changes, split_bot_list
from cardrl.train.numpy_policy import ACTIVATIONS
from cardrl.train.opponents import check_bot, parse_mix, rule_bots, strongest_bots

RUNS_DIR = Path("runs")  # every trainer's runs: runs/<name>/
CONFIG_FILE = "config.json"
POLICIES = ("mlp", "card")  # the networks a run may train (RunConfig.policy)


def hidden_sizes(text: str) -> tuple[int, ...]:
    """``--net 256,256`` -> (256, 256), for every trainer's command line."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 256,256, got {text!r}") from None


def table_sizes(text: str) -> tuple[int, ...]:
    """``--player-counts 2-9`` or ``2,3,4`` -> the table sizes."""
    out: list[int] = []
    try:
        for part in (x.strip() for x in text.split(",") if x.strip()):
            low, _, high = part.partition("-")
            out.extend(range(int(low), int(high or low) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected table sizes like 2-9 or 2,3,4, got "
                                         f"{text!r}") from None
    return tuple(out)


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


def knob(default: Any, help: str = "", *, flag: str | None = None,
         parse: Callable[[str], Any] | None = None, read: Callable[[Any], Any] | None = None,
         choices: Sequence[Any] | None = None, action: str | None = None,
         metavar: str | None = None, tunable: bool = False, cli: bool = True) -> Any:
    """A config field whose command line lives in its metadata: ``help``; ``flag`` (default
    ``--<name>``, ``--no-<name>`` for a bool that defaults to true); ``parse``, the flag's
    type (default: the default's); ``read``, what the parsed value becomes in the field;
    ``tunable``: ``--resume`` may change it; ``cli=False``: no flag."""
    meta = {"help": help, "flag": flag, "parse": parse, "read": read, "choices": choices,
            "action": action, "metavar": metavar, "tunable": tunable, "cli": cli}
    if isinstance(default, dict):
        return field(default_factory=dict, metadata=meta)
    return field(default=default, metadata=meta)


def redefault(cls: type, name: str, default: Any) -> Any:
    """Field ``name`` of ``cls`` with another default, its help and flag kept (a trainer's
    own default of a shared knob)."""
    return field(default=default, metadata=cls.__dataclass_fields__[name].metadata)


def add_arguments(p: argparse.ArgumentParser, cls: type[RunConfig],
                  resumable: bool = False) -> None:
    """A flag per field of ``cls`` (its ``knob`` metadata), each defaulting to None: a flag
    left out keeps the config's default (``from_args``) or, resumed, the run's own value
    (``resumed_with``)."""
    defaults = cls()
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if not meta.get("cli", True):
            continue
        default = getattr(defaults, f.name)
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        note = f"default {shown}" if shown not in ("", (), None, {}) else ""
        if resumable and meta.get("tunable"):
            note += "; with --resume: changes the run"
        # what a run's steps count is the trainer's (``STEPS``)
        base = cls.STEPS if f.name == "steps" else meta.get("help", "")
        text = f"{base} ({note.lstrip('; ')})" if note else base
        kw: dict[str, Any] = {"dest": f.name, "default": None,
                              "help": text.replace("%", "%%") or None}
        name = f.name.replace("_", "-")
        flag = meta.get("flag")
        if isinstance(default, bool) and meta.get("parse") is None:
            kw.update(action="store_const", const=not default)
            flag = flag or (f"--no-{name}" if default else f"--{name}")
        elif meta.get("action"):
            kw.update(action=meta["action"], metavar=meta.get("metavar"))
        else:
            kw.update(type=meta.get("parse") or type(default), choices=meta.get("choices"),
                      metavar=meta.get("metavar"))
        p.add_argument(flag or f"--{name}", **kw)


@dataclass
class RunConfig:
    """What every trainer's run has; a trainer's config extends it (``TrainConfig``,
    ``cardrl.train.dmc.DMCConfig``, ``cardrl.train.rllib.RllibConfig``)."""

    TRAINER: ClassVar[str] = ""  # a trainer's tag in default run names ("" for train.ppo)
    COMMAND: ClassVar[str] = "cardrl.train.run"  # the module whose --resume goes on with a run
    STEPS: ClassVar[str] = "the run's length in steps"  # what ``steps`` counts, for --help
    # old field names of saved configs -> today's (config.json of older runs still loads)
    RENAMED: ClassVar[dict[str, str]] = {}

    game: str = knob("spades", "a registered game")
    preset: str | None = knob(None, "rules preset (default: the game's first)", parse=str)
    observation: str = knob("infostate", "what the network reads: the information state or "
                            "the expert's features as well (envs.encoding)", choices=KINDS)
    rule_changes: dict[str, Any] = knob(
        {}, "change a rules field of the preset (repeatable)", flag="--rule", action="append",
        metavar="KEY=VALUE", read=parse_rule_changes)
    episode: str = knob("game", "what one episode is (docs/rules.md section 5); a resumed run "
                        "may switch (warm the critic again)", choices=("game", "hand"),
                        tunable=True)
    relative_score: bool = knob(False, "reward a seat's points minus the others' mean "
                                "(what ranks pay)")
    hand_reward: str = knob("points", "what a hand pays: its points, or its worth (the "
                            "game's hand_worth: Spades charges each bag as it is made)",
                            choices=HAND_REWARDS)
    win_reward: float = knob(1.0, "reward to the winner at the episode's end (0: points only)")
    score_scale: float | None = knob(
        None, "a hand's points are rewarded divided by this (default: the game's scale); 0: "
        "no points, the win alone", parse=float)
    max_hands: int | None = knob(40, "safety cap on hands per training game (untrained "
                                 "self-play may not end); 0 = none", read=lambda n: n or None)
    steps: int = knob(200_000, tunable=True)
    seed: int = knob(0)
    net: tuple[int, ...] = knob((256, 256), "hidden layer sizes, e.g. 256,256",
                                parse=hidden_sizes)
    activation: str = knob("tanh", choices=sorted(ACTIVATIONS))
    policy: str = knob("mlp", "mlp: MLPs over the vector; card: one card-structured network "
                       "that reads every card through a shared embedding (train.cardnet)",
                       choices=POLICIES)
    card_embed: int = knob(32, "the card network's per-card embedding size")
    learning_rate: float = knob(3e-4, flag="--lr", tunable=True)
    gamma: float = knob(0.995, "discount per step", tunable=True)
    batch_size: int = knob(512, "minibatch size of each gradient step", tunable=True)
    eval_every: int = knob(50_000, "steps between duplicate matches against each eval bot; "
                           "0 = never", tunable=True)
    eval_deals: int = knob(8, "deals per match (each in every seat rotation)", tunable=True)
    eval_bots: tuple[str, ...] = knob(
        (), "comma-separated rule bots to evaluate against (default: the strongest)",
        parse=str, read=lambda text: tuple(split_bot_list(text)))
    eval_fill: str = knob("", "at three or more seats, seat each eval bot once, this bot "
                          "(e.g. random) in the other seats: beside copies of itself a "
                          "deterministic bot can tie every deal")
    eval_workers: int = knob(1)
    name: str = knob("", f"run directory {RUNS_DIR}/<name> (default: "
                     "<game>-<preset>[-<trainer>]-s<seed>-<time>)")

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
                "hand_reward": self.hand_reward, "win_reward": self.win_reward,
                "score_scale": self.score_scale, "observation": self.observation}

    @classmethod
    def tunable(cls) -> tuple[str, ...]:
        """The knobs a resumed run may change (``knob(tunable=True)``)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("tunable"))

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
        check_ints(self, ("steps", "eval_deals", "eval_workers", "batch_size"), 1)
        check_ints(self, ("eval_every", "seed"), 0)
        check_unit(self, ("learning_rate", "gamma"))
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
        if self.hand_reward not in HAND_REWARDS:
            raise ValueError(f"hand_reward must be one of {HAND_REWARDS}, got "
                             f"{self.hand_reward!r}")
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
        if not isinstance(self.eval_fill, str):
            raise ValueError(f"eval_fill must be a bot spec, got {self.eval_fill!r}")
        if self.eval_fill:
            check_bot(self.eval_fill, self.game, role="eval_fill bot")
        if not isinstance(self.name, str) or "/" in self.name or self.name.startswith("."):
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

    # ------------------------------------------------------- command line
    @classmethod
    def given(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The fields a command line built by ``add_arguments`` gives (a flag left out is
        None there), as the fields hold them."""
        out = {}
        for f in dataclasses.fields(cls):
            value = getattr(args, f.name, None)
            if value is None or not f.metadata.get("cli", True):
                continue
            read = f.metadata.get("read")
            out[f.name] = read(value) if read else value
        return out

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """A new run's config from its command line; a flag left out keeps the default."""
        return cls(**cls.given(args))

    def resumed_with(self, args: argparse.Namespace) -> Self:
        """This run's config with the knobs a resume may change that ``args`` gives (the
        others are the run's own)."""
        tunable = self.tunable()
        return dataclasses.replace(self, **{k: v for k, v in self.given(args).items()
                                            if k in tunable})


@dataclass
class BatchedRunConfig(RunConfig):
    """A run in one process over ``BatchedGames`` (``cardrl.train.ppo``, ``cardrl.train.dmc``):
    games side by side, checkpoints, torch threads, the rate's decay."""

    n_games: int = knob(256, "games played side by side (one network call per tick decides "
                        "every game's network seats)")
    lr_decay: bool = knob(False, "the learning rate falls linearly to 0 at the last step")
    checkpoint_every: int = knob(20_000)
    torch_threads: int = knob(0, "0 = every core")
    player_counts: tuple[int, ...] = knob(
        (), "train on a mix of table sizes, e.g. 2-9: the games split evenly over these "
        "counts (the rules field num_players), one network for all; only where the "
        "observation has one size at every count. Empty: the rules' own count",
        parse=table_sizes)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.player_counts = tuple(self.player_counts)

    def games(self) -> BatchedGames | MixedBatchedGames:
        """The run's ``n_games`` training games: at the rules' count, or over
        ``player_counts``."""
        return make_games(self.game, self.n_games, self.player_counts, preset=self.preset,
                          **self.env_options(), **self.env_rule_changes())

    def threads(self) -> int:
        return self.torch_threads or max(1, os.cpu_count() or 1)

    def validate(self) -> None:
        super().validate()
        check_ints(self, ("n_games", "checkpoint_every"), 1)
        check_ints(self, ("torch_threads",), 0)
        if not isinstance(self.lr_decay, bool):
            raise ValueError(f"lr_decay must be true or false, got {self.lr_decay!r}")
        if self.player_counts:
            if "num_players" in self.rule_changes:
                raise ValueError("give the table sizes with player_counts or num_players, "
                                 "not both")
            game = get_game(self.game)
            preset = self.preset if self.preset is not None else game.presets[0]
            mixed_rules(game, game.get_rules(preset, **self.env_rule_changes()),
                        self.player_counts, self.observation)  # raises naming the bad count
            if self.n_games < len(self.player_counts):
                raise ValueError(f"n_games {self.n_games} is fewer than the "
                                 f"{len(self.player_counts)} player_counts: one game per "
                                 "count at least")


@dataclass
class PPOKnobs(RunConfig):
    """PPO's own knobs, under SB3's names, for every PPO trainer."""

    gae_lambda: float = knob(0.95, tunable=True)
    ent_coef: float = knob(0.01, tunable=True)
    clip_range: float = knob(0.2, tunable=True)
    n_epochs: int = knob(4, "passes over each rollout", tunable=True)

    def validate(self) -> None:
        super().validate()
        check_ints(self, ("n_epochs",), 1)
        check_unit(self, ("gae_lambda", "clip_range"))
        if self.ent_coef < 0:
            raise ValueError(f"ent_coef must be >= 0, got {self.ent_coef!r}")


@dataclass
class TrainConfig(PPOKnobs, BatchedRunConfig):
    """A run of ``cardrl.train.ppo``: SB3's MaskablePPO over batched self-play. ``steps`` counts
    learner steps (decisions of the learner's seats, all games together)."""

    STEPS: ClassVar[str] = "total learner steps of the run"

    opponents: str = knob(
        "self@0.8,snapshot@0.2", "opponent mix: what@weight entries; what = a bot spec, self, "
        "snapshot (the latest snapshots), average (any snapshot so far: fictitious "
        "self-play), greedy (a latest snapshot by its argmax: a fixed opponent to exploit) "
        "or rules (every rule bot of the game)")
    action_head: bool = knob(True, "per-action observation blocks scored onto their actions "
                             "(train.policy); off: a plain MLP head")
    n_steps: int = knob(32, "rollout length per game (a rollout is n_games x n_steps steps)")
    critic_warmup: int = knob(0, "train only the critic for the first STEPS steps (after "
                              "--imitate)", metavar="STEPS", tunable=True)
    critic_warmup_lr: float = knob(3e-4, "the critic's learning rate during the warm-up",
                                   tunable=True)
    target_kl: float | None = knob(None, "stop an update's epochs early once the policy "
                                   "moved this far (KL); default never", parse=float,
                                   tunable=True)
    imitate: str = knob("", "clone this rule bot into the policy before PPO (train.imitate)",
                        metavar="BOT")
    imitate_samples: int = knob(200_000, "teacher decisions to clone")
    imitate_epochs: int = knob(10)
    imitate_balance: float = knob(0.0, "weight each teacher move by its action's count^-B "
                                  "(0 = plain)")
    snapshot_every: int = knob(50_000, "steps between frozen copies of the policy joining "
                               "the opponent pool")
    max_snapshots: int = knob(10, "the snapshot entry's pool: the latest this many")
    max_average: int = knob(50, "the average entry's pool: a reservoir sample of every "
                            "snapshot so far")
    magnet_coef: float = knob(0.0, "charge each learner move COEF * log(pi/magnet) "
                              "(magnetic mirror descent); 0 = off")
    magnet_every: int = knob(100_000, "steps between replacing the magnet by the current "
                             "policy")
    exploit_every: int = knob(0, "steps between exact exploitability measures, where the "
                              "game declares them (Game.exploitability); 0 = never")
    average_net: int = knob(0, "fit one network to this many decisions of the snapshots' "
                            "mix (NFSP's average network): average.onnx, and its "
                            "exploitability beside the mix's; 0 = none")

    def validate(self) -> None:
        super().validate()
        check_ints(self, ("n_steps", "max_snapshots", "imitate_samples", "imitate_epochs",
                          "max_average", "magnet_every"), 1)
        check_ints(self, ("snapshot_every", "critic_warmup", "exploit_every", "average_net"), 0)
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
        if self.target_kl is not None and not (isinstance(self.target_kl, int | float)
                                               and self.target_kl > 0):
            raise ValueError(f"target_kl must be positive or None, got {self.target_kl!r}")
        if not isinstance(self.imitate_balance, int | float) or not 0 <= self.imitate_balance <= 1:
            raise ValueError(f"imitate_balance must be in [0, 1], got {self.imitate_balance!r}")
        parse_mix(self.opponents, self.game)
        if self.imitate:
            check_bot(self.imitate, self.game, role="teacher")
