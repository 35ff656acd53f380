"""The tournament directory on disk: config, one JSON log per game, summary.

    <out>/tournament.json          the config (a rerun must match it to resume)
    <out>/games/<deal>-<rot>.json  one finished game each
    <out>/summary.json, summary.txt
    <out>/disqualified.json        bots disqualified so far, why and where (if any)
    <out>/voided/round-<k>/        games played before the (k+1)-th disqualification,
                                   and failed-<deal>-<rot>.json, the game the bot failed in

Every file is written atomically (``cardrl.envs.files.write_atomic``), so an
interrupted run never leaves a half-written log: a log that exists is a
finished game, which is what makes resuming safe.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from cardrl.envs.files import TMP_SUFFIX, write_atomic
from cardrl.eval.config import ConfigError, TournamentConfig
from cardrl.eval.play import game_header

GAMES_DIR = "games"
VOIDED_DIR = "voided"
CONFIG_FILE = "tournament.json"
DISQUALIFIED_FILE = "disqualified.json"


def game_path(out: Path, deal: int, rotation: int) -> Path:
    return out / GAMES_DIR / f"{deal:05d}-{rotation}.json"


def game_log_text(log: dict) -> str:
    """One top-level field per line, values compact: readable, and small for long games."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in log.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_game_log(out: Path, log: dict) -> None:
    write_atomic(game_path(out, log["deal"], log["rotation"]), game_log_text(log))


def read_game_log(out: Path, cfg: TournamentConfig, deal: int, rotation: int,
                  table: Sequence[int] | None = None, excluded: Sequence[int] = ()) -> dict | None:
    """The stored log of a finished game, or None; error if it belongs to another config."""
    path = game_path(out, deal, rotation)
    try:
        log = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise ConfigError(f"unreadable game log {path}: {err}; delete it to replay") from None
    expected = game_header(cfg, deal, rotation, table, excluded)
    expected.setdefault("excluded", [])
    for key, value in expected.items():
        if log.get(key, [] if key == "excluded" else None) != value:
            raise ConfigError(f"game log {path} was played with {key}="
                              f"{log.get(key, [] if key == 'excluded' else None)!r}, but this "
                              f"tournament has {key}={value!r}; use another --out or --fresh")
    return log


def void_stale_logs(out: Path, excluded: Sequence[int]) -> int:
    """Move the logs of games played before the last disqualification to ``voided/``.

    A disqualification reruns the tournament without the bot, so every game
    played with another set of excluded bots is void; its log is kept, under
    ``voided/round-<number of bots then excluded>/``. Returns how many moved.
    """
    moved = 0
    for path in sorted((out / GAMES_DIR).glob("*.json")):
        try:
            was = json.loads(path.read_text(encoding="utf-8")).get("excluded", [])
        except (OSError, ValueError):
            continue  # read_game_log reports it
        if was != sorted(excluded):
            dest = out / VOIDED_DIR / f"round-{len(was)}" / path.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, dest)
            moved += 1
    return moved


def read_disqualified(out: Path) -> list[dict]:
    """The disqualification records of ``out`` so far, in the order they happened."""
    path = out / DISQUALIFIED_FILE
    if not path.exists():
        return []
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ConfigError(f"unreadable {path}: {err}") from None


def add_disqualified(out: Path, record: dict, failed_log: dict | None) -> None:
    """Record a disqualification (atomically), and keep the failed game's log beside the
    voided games of that round."""
    records = read_disqualified(out)
    if failed_log is not None:
        name = f"failed-{failed_log['deal']:05d}-{failed_log['rotation']}.json"
        write_atomic(out / VOIDED_DIR / f"round-{len(records)}" / name, game_log_text(failed_log))
    write_atomic(out / DISQUALIFIED_FILE, json.dumps(records + [record], indent=2) + "\n")


def remove_stale_temp_files(out: Path) -> None:
    """Temp files of writes that a kill interrupted: never a finished game."""
    for tmp in (out / GAMES_DIR).glob("*" + TMP_SUFFIX):
        tmp.unlink(missing_ok=True)


def check_or_write_config(out: Path, cfg: TournamentConfig) -> None:
    """Claim ``out`` for ``cfg``; a directory holding another tournament is an error."""
    path = out / CONFIG_FILE
    mine = cfg.to_dict()
    if path.exists():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as err:
            raise ConfigError(f"unreadable {path}: {err}") from None
        diffs = [k for k in sorted(set(mine) | set(stored)) if mine.get(k) != stored.get(k)]
        if diffs:
            k = diffs[0]
            raise ConfigError(f"{out} holds another tournament ({k}: stored {stored.get(k)!r}, "
                              f"now {mine.get(k)!r}); use another --out, or --fresh to replace it")
        return
    write_atomic(path, json.dumps(mine, indent=2) + "\n")


def clear(out: Path) -> None:
    """Remove a previous tournament's files from ``out`` (only the files we write)."""
    for log in (out / GAMES_DIR).glob("*.json"):
        log.unlink()
    remove_stale_temp_files(out)
    for name in (CONFIG_FILE, DISQUALIFIED_FILE, "summary.json", "summary.txt"):
        (out / name).unlink(missing_ok=True)
    voided = out / VOIDED_DIR
    if voided.is_dir():
        for log in voided.glob("round-*/*.json"):
            log.unlink()
        for d in voided.glob("round-*"):
            if not any(d.iterdir()):
                d.rmdir()
