"""Tournament games as Ray tasks across a cluster (``python -m cardrl.eval.tournament ... --ray``).

A duplicate tournament with a search bot takes hours on one machine; every game
is fixed by (config, deal, rotation), so games spread over a cluster exactly as
over the local pool (``cardrl.eval.pool``), and the results are the same.

* **Players**: ``--workers`` Ray actors (one CPU each; default one per CPU of the
  cluster) play games with ``cardrl.eval.play.play_game``, two calls queued per actor.
  An actor keeps its bots' processes from game to game, as a pool worker does, so
  a bot file still runs in its own process under its per-move time limit
  (``cardrl.eval.bot_process``), on whichever node the actor lives.
* **Logs**: an actor returns the game's whole log and the driver writes it
  (``cardrl.eval.logs``, atomically): nothing assumes a shared filesystem, and resume,
  voiding and the summary read the driver's logs as locally.
* **Files**: the bot files (``x.py``) and exported bots (``x.onnx`` with their
  cards) that the lineup names, as bots or option values, are copied into a
  staging directory that travels as the job's runtime-env ``working_dir``; the
  whole cardrl package travels as ``py_modules`` (``cardrl.runtime_env``), so
  workers run the driver's code, installed there or not. On a worker the lineup
  names the copies; every log and error that comes back names the original paths
  again. Ray uploads local directories only for a job (``ray.init``), so a
  tournament connects to Ray itself: not from a process already connected.
* **Failures**: a ``BotError`` comes back as a value. The driver stops handing out
  games, waits for the games before the failed one (in the local runner's order),
  and raises the earliest failure, so disqualification and its reruns
  (``cardrl.eval.tournament``) go as they do locally.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import ray

from cardrl.agents.registry import parse_spec
from cardrl.eval import bot_process
from cardrl.eval.bot_process import ProcessBotError
from cardrl.eval.config import ConfigError, TournamentConfig, as_json
from cardrl.eval.logs import write_game_log
from cardrl.eval.play import BotError, game_record, play_game
from cardrl.runtime_env import py_modules

SHIP_DIR = "_cardrl_shipped"  # in the working_dir: <k>/<name>, one k per source directory
SHIPPED_SUFFIXES = (".py", ".onnx")
IN_FLIGHT_PER_ACTOR = 2  # one game playing, the next one queued behind it


# ------------------------------------------------------------------ files
def spec_paths(spec: str) -> list[str]:
    """The files a bot spec names: a bot file or exported bot, and option values that are."""
    name, options = parse_spec(spec)
    values = [name, *(v for v in options.values() if isinstance(v, str))]
    return [v for v in values if v.endswith(SHIPPED_SUFFIXES) and Path(v).is_file()]


def _with_card(path: Path) -> list[Path]:
    """An exported bot travels with its card and the network the card names."""
    if path.suffix != ".onnx":
        return [path]
    files = [path]
    card = path.with_suffix(".json")
    if card.is_file():
        files.append(card)
        with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
            named = path.with_name(json.loads(card.read_text())["onnx"])
            if named.is_file() and named != path:
                files.append(named)
    return files


@dataclasses.dataclass(frozen=True)
class Staged:
    """The staging directory and how lineup specs and paths map onto it."""

    root: Path
    specs: dict[str, str]  # original spec -> the spec a worker plays (staged paths)
    paths: dict[str, str]  # original path as the spec wrote it -> staged path (relative)


def stage_files(bots: Sequence[str], root: Path) -> Staged:
    """Copy the files the lineup names into ``root`` and rewrite the specs to name them."""
    dirs: dict[Path, str] = {}
    paths: dict[str, str] = {}
    for spec in bots:
        for text in spec_paths(spec):
            if text in paths:
                continue
            source = Path(text).resolve()
            rel = dirs.setdefault(source.parent, f"{SHIP_DIR}/{len(dirs)}")
            (root / rel).mkdir(parents=True, exist_ok=True)
            for f in _with_card(source):
                shutil.copy2(f, root / rel / f.name)
            paths[text] = f"{rel}/{source.name}"
    specs = {spec: _respec(spec, paths) for spec in bots}
    return Staged(root, specs, paths)


def _respec(spec: str, paths: dict[str, str]) -> str:
    """``spec`` with each path it names (the bot, option values) replaced by its copy."""
    name, sep, options = spec.strip().partition(":")
    name = paths.get(name.strip(), name)
    items = []
    for item in options.split(",") if sep else []:
        key, eq, value = item.partition("=")
        items.append(f"{key}{eq}{paths.get(value.strip(), value)}" if eq else item)
    return name + (sep + ",".join(items) if sep else "")


class Restorer:
    """Turns what a worker says (its staged specs and paths) back into the lineup's own."""

    def __init__(self, staged: Staged, workdir: str | None = None) -> None:
        pairs = [(w, s) for s, w in staged.specs.items() if w != s]
        pairs += [(w, p) for p, w in staged.paths.items()]
        if workdir:
            pairs += [(os.path.join(workdir, w), p) for p, w in staged.paths.items()]
        self.pairs = sorted(pairs, key=lambda pair: -len(pair[0]))  # longest first

    def text(self, value: str) -> str:
        for worker, original in self.pairs:
            if worker in value:
                value = value.replace(worker, original)
        return value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        return value


# ----------------------------------------------------------------- worker
@ray.remote(num_cpus=1, max_restarts=2, max_task_retries=2)
class GamePlayer:
    """One game at a time, on any node; its process bots stay up between games. A game
    fixes its own result, so one lost with its node is simply played again."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.cfg = cfg  # the lineup names the staged copies (cwd = the working_dir)

    def workdir(self) -> str:
        return os.getcwd()

    def load(self, entries: Sequence[int]) -> list[tuple[int, str] | None]:
        """Start the process bots of ``entries``; per entry None or (kind, reason)."""
        cfg = self.cfg
        started = bot_process.start_all([(e, cfg.bots[e], cfg.game, cfg.answer_limit(cfg.bots[e]))
                                         for e in entries])
        out: list[tuple[int, str] | None] = []
        for bot in started:
            if isinstance(bot, ProcessBotError):
                out.append(("load", f"could not be loaded: {bot}"))
            elif bot.game not in (None, cfg.game):
                bot_process.discard(bot)
                out.append(("load", f"plays {bot.game}, not {cfg.game}"))
            else:
                out.append(None)
        return out

    def play(self, deal: int, rotation: int, table: tuple[int, ...],
             excluded: tuple[int, ...]) -> tuple[str, Any]:
        """("ok", log) or ("error", BotError): a bot's failure is a result, not a crash."""
        try:
            return "ok", play_game(self.cfg, deal, rotation, table, excluded)
        except BotError as err:
            return "error", err

    def close(self) -> None:
        bot_process.close_all()


# ----------------------------------------------------------------- driver
class RaySession:
    """A tournament's link to Ray: the staged files, the game players, the restorer."""

    def __init__(self, cfg: TournamentConfig, address: str = "", workers: int | None = None,
                 quiet: bool = True) -> None:
        """Stage the lineup's files and connect to Ray at ``address`` ("": Ray's default,
        ``RAY_ADDRESS`` or the cluster ``ray start`` made here, else a new local Ray)."""
        if ray.is_initialized():
            raise ConfigError("this process is already connected to Ray: a tournament ships "
                              "its bot files as the runtime env of its own Ray job, so call "
                              "it before ray.init() or after ray.shutdown()")
        self.cfg = cfg
        self._tmp = tempfile.mkdtemp(prefix="cardrl-ray-")
        self.staged = stage_files(cfg.bots, Path(self._tmp))
        self.remote_cfg = dataclasses.replace(
            cfg, bots=tuple(self.staged.specs[b] for b in cfg.bots))
        (Path(self._tmp) / SHIP_DIR).mkdir(exist_ok=True)  # a working_dir, even with no files
        try:
            ray.init(address=address or None, logging_level=logging.WARNING,
                     log_to_driver=not quiet,
                     runtime_env={"working_dir": self._tmp, "py_modules": py_modules()})
        except (ConnectionError, RuntimeError, ValueError) as err:
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise ConfigError(f"cannot start or reach Ray at {address or 'a local Ray'}: "
                              f"{err}") from None
        self.started = True
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        # a player holds one CPU: more than the cluster has would wait forever for one
        self.workers = max(1, min(workers, cpus) if workers is not None else cpus)
        if not quiet and workers is not None and workers > cpus:
            print(f"the cluster has {cpus} CPUs: {cpus} game players, not {workers}",
                  file=sys.stderr)
        self.actors: list[Any] = []
        self.restore = Restorer(self.staged)

    # ------------------------------------------------------------ actors
    def _players(self) -> list[Any]:
        if not self.actors:
            self.actors = [GamePlayer.remote(self.remote_cfg) for _ in range(self.workers)]
            workdir = ray.get(self.actors[0].workdir.remote())
            self.restore = Restorer(self.staged, workdir)
        return self.actors

    def stop_players(self) -> None:
        """End the game players (and with them their bots' processes)."""
        actors, self.actors = self.actors, []
        for actor in actors:
            with contextlib.suppress(Exception):
                ray.kill(actor)

    def close(self) -> None:
        """End the players (letting them close their bots when idle) and leave Ray."""
        with contextlib.suppress(Exception):
            ray.get([p.close.remote() for p in self.actors], timeout=10)
        self.stop_players()
        shutil.rmtree(self._tmp, ignore_errors=True)
        if self.started:
            ray.shutdown()
            self.started = False

    # ------------------------------------------------------------ work
    def load_check(self, active: Sequence[int]) -> list[BotError]:
        """Start every process bot on every player at once (as ``_load_check`` does
        locally); the entries that fail to load anywhere, in lineup order."""
        cfg = self.cfg
        entries = [e for e in active if cfg.runs_in_own_process(cfg.bots[e])]
        if not entries:
            return []
        answers = ray.get([p.load.remote(entries) for p in self._players()])
        failures = []
        for i, entry in enumerate(entries):
            bad = next((a[i] for a in answers if a[i] is not None), None)
            if bad is not None:
                spec = cfg.bots[entry]
                failures.append(BotError(f"bot {spec!r} {self.restore.text(bad[1])}", bad[0],
                                         spec, entry))
        return failures  # the players keep the bots that loaded, for the next round

    def play_games(self, out: Path, tasks: Sequence[tuple[int, int, tuple[int, ...]]],
                   excluded: Sequence[int] = ()) -> Iterator[dict]:
        """Play ``tasks`` on the players, write each log here, yield its record."""
        if not tasks:  # everything was read back from the logs: start no players
            return
        excluded = tuple(excluded)
        players = self._players()
        pending: dict[Any, int] = {}  # object ref -> task index
        queued = {i: 0 for i in range(len(players))}
        owner: dict[Any, int] = {}
        failures: dict[int, BotError] = {}
        next_task = 0
        try:
            while True:
                if not failures:
                    for i, player in enumerate(players):
                        while queued[i] < IN_FLIGHT_PER_ACTOR and next_task < len(tasks):
                            deal, rotation, table = tasks[next_task]
                            ref = player.play.remote(deal, rotation, tuple(table), excluded)
                            pending[ref], owner[ref] = next_task, i
                            queued[i] += 1
                            next_task += 1
                if failures and not any(j < min(failures) for j in pending.values()):
                    raise failures[min(failures)]
                if not pending:
                    return
                [ref], _ = ray.wait(list(pending), num_returns=1)
                index = pending.pop(ref)
                queued[owner.pop(ref)] -= 1
                status, value = ray.get(ref)
                if status == "ok":
                    yield self._save(out, value, tasks[index])
                else:
                    failures[index] = self._error(value)
        except BaseException:
            self.stop_players()  # games in flight are abandoned; their bots end with them
            raise

    def _save(self, out: Path, log: dict, task: tuple) -> dict:
        log = self.restore(log)
        deal, rotation, table = task
        log["seats"] = self.cfg.seat_bots(rotation, table)
        write_game_log(out, log)
        return as_json(game_record(log))

    def _error(self, err: BotError) -> BotError:
        fields = self.restore(dict(err.__dict__))
        restored = BotError(self.restore.text(str(err)))
        restored.__dict__.update(fields)
        return restored
