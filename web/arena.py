"""The bot arena: people upload trained networks, which play duplicate matches in the
background against the rule bots, the shipped networks and each other, and are ranked
per division (game, preset, player count).

An upload is an ONNX file and its card as ``train`` exports them. It is checked before
anything runs (``cardrl.web.arena_check``: the card here, the network in a limited child
process), then stored in the database: the card, the bytes (base64) and their digest.
The bytes never name a file: to play, a network is written under a name the server
chooses (``arena-<id>-<digest>.onnx`` in the arena folder) and runs in its own process
(``cardrl.eval.bot_process``) with a time limit per move and a memory limit.

Matches are the tournament's (``cardrl.eval.play``): a *deal* is one seed played in every seat
rotation at a table of the division's participants, picked around the uploaded bot
with the fewest deals so far (the others by fewest deals shared with it). Each finished
game is stored at once, so an interrupted server loses only games in flight; it resumes
a deal's missing rotations on restart. A bot that raises, answers late, crashes,
outputs NaN or plays an illegal move is disqualified, the reason kept for its owner,
and the deal it was in voided. The leaderboard counts only deals whose players are all
still listed, with ``cardrl.eval.stats``' duplicate-honest intervals and head-to-head shares.

A listed bot is also a seat option at every table of its game and player count
(``cardrl.web.bots.Bots.external``): its moves there go to its own timed process too.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import json
import logging
import multiprocessing
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardrl import agents
from cardrl.agents.learned import shipped_folder
from cardrl.envs.files import write_atomic
from cardrl.envs.games import game_names, get_game
from cardrl.eval import bot_process
from cardrl.eval.bot_process import ProcessBot
from cardrl.eval.config import TournamentConfig
from cardrl.eval.play import BotError, game_record, play_game
from cardrl.eval.stats import bot_stats, head_to_head
from cardrl.web.arena_check import MAX_CARD, Limits, RefusedUploadError, check_card, check_model
from cardrl.web.bots import PREFIX, Bots, _init_worker, shipped_checkpoints
from cardrl.web.table import NotFoundError, RefusedError

log = logging.getLogger("web")
SPEC = "arena:"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,31}$")
IDLE = 5.0  # seconds between looks for work when there is none


class UploadTooLargeError(RefusedError):
    status = 413


class BusyError(RefusedError):
    status = 429


@dataclass(frozen=True)
class ArenaSettings:
    """The arena's knobs (``create_app(arena=...)``, ``python -m cardrl.web --arena-...``)."""

    folder: Path = Path("runs/web/arena")  # where networks are written to be played
    limits: Limits = field(default_factory=Limits)  # of an upload and its check
    move_seconds: float = 2.0  # per move, in matches and at tables (the bot's process)
    memory: int = 1024 * 1024 * 1024  # bytes of address space of a bot's process
    deals: int = 12  # deals each listed bot plays (each in every seat rotation)
    provisional: int = 10  # below this many counted deals a row is provisional: never
    # ranked above a measured one (three deals of luck must not top the board)
    max_hands: int = 1  # hands per game
    per_user: int = 5  # bots one person may have listed at once
    matches: bool = True  # play matches in the background (tests may turn it off)


@dataclass(frozen=True)
class ArenaConfig(TournamentConfig):
    """A tournament config whose ``own_process`` bots (the uploads) play in their own
    timed processes, while the rule bots play in the match worker."""

    own_process: frozenset[str] = frozenset()

    def runs_in_own_process(self, spec: str) -> bool:
        return spec in self.own_process or super().runs_in_own_process(spec)


# ------------------------------------------------------- the match worker
_LAST: dict[str, Any] = {"cfg": None}


def play_arena_game(job: dict) -> dict:
    """One game of a deal, in the match worker: its record (seats as participant keys),
    or ``{"error": ...}`` naming the bot that failed (as its key) and why."""
    bot_process.MEMORY_LIMIT = job["memory"]
    cfg = ArenaConfig(game=job["game"], bots=tuple(job["specs"]), preset=job["preset"],
                      max_hands=job["max_hands"], seed=0, time_limit=job["move_seconds"],
                      own_process=frozenset(job["own"]))
    if cfg != _LAST["cfg"]:  # other bots now: end the processes of the last deal's
        bot_process.close_all()
        _LAST["cfg"] = cfg
    key = dict(zip(job["specs"], job["seats"], strict=True))
    try:
        record = game_record(play_game(cfg, job["deal"], job["rotation"]))
    except BotError as err:
        reason = str(err)
        for spec in job["own"]:  # the server's file names stay its own
            reason = reason.replace(repr(spec), repr(key[spec]))
            reason = reason.replace(spec.removesuffix(":worlds=0"), key[spec])
        return {"error": {"bot": key.get(err.bot), "kind": err.kind, "reason": reason}}
    record["seats"] = [key[s] for s in record["seats"]]
    return record


# ------------------------------------------------------------------ arena
class Arena:
    """Uploads, matches and leaderboards of one server, over its store."""

    def __init__(self, store: Any, bots: Bots, settings: ArenaSettings | None = None,
                 clock: Callable[[], float] = time.time, lanes: Any = None) -> None:
        """``lanes``: many servers' database lanes (``cardrl.web.cluster.Lanes``), where its
        database work goes; the list is then read by ``in_lane(_reload)``, not here."""
        self.own_store = store  # the event loop's
        self.local = threading.local()  # ``store``: a database lane's, in that lane's thread
        self.lanes = lanes
        self.changed = 0  # listing changes made on the event loop (uploads, withdrawals)
        self.clock = clock
        self.bots = bots
        self.settings = settings or ArenaSettings()
        self.folder = Path(self.settings.folder).resolve()
        self.listed: dict[int, dict] = {}  # id -> row (without the bytes) of listed bots
        self.checking: set[int] = set()  # users with an upload being checked
        self.check_slots = asyncio.Semaphore(1)  # checks at once, server-wide
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.table_bots: dict[int, ProcessBot] = {}
        self.table_locks: dict[int, threading.Lock] = {}
        self.closed = False
        if lanes is None:
            self._reload()
        bots.external = self

    @property
    def store(self) -> Any:
        """The store of the thread asking: a database lane's (the look for work, many
        servers), else the event loop's."""
        return getattr(self.local, "store", None) or self.own_store

    @property
    def db(self) -> Any:
        return self.store.db

    def _look(self) -> dict | None:
        """In the arena's database lane: the list read again and the next game picked."""
        self._reload()
        return self.next_job()

    async def in_lane(self, fn: Callable, *args) -> Any:
        """``fn(*args)`` with its database work in the arena's lane when the server has
        lanes (many servers, PostgreSQL), one at a time and in order; else here."""
        if self.lanes is None:
            return fn(*args)

        def call(store: Any) -> Any:
            self.local.store = store
            try:
                return fn(*args)
            finally:
                self.local.store = None

        return await self.lanes.run("arena", call)

    def _reload(self) -> None:
        rows = self.db.rows("SELECT id, owner, name, game, preset, players, card, digest, "
                            "status, reason, created FROM arena_bots WHERE status = ? "
                            "ORDER BY id", ("listed",))
        names = self.store.user_names(r["owner"] for r in rows)
        self.listed = {r["id"]: {**r, "card": json.loads(r["card"]),
                                 "owner_name": names.get(r["owner"], "?")} for r in rows}

    # ------------------------------------------------------------ uploads
    async def upload(self, user_id: int, name: Any, card: Any, model: Any) -> dict:
        """Check and list a bot; ``RefusedError`` (4xx) naming the reason, nothing stored."""
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise RefusedError("a bot's name is 1 to 32 letters, digits, spaces, '.', '_' "
                               "or '-', starting with a letter or digit")
        if not isinstance(card, dict):
            raise RefusedError("card must be the JSON object train exports beside the .onnx")
        if len(json.dumps(card)) > MAX_CARD:
            raise UploadTooLargeError(f"the card has more than {MAX_CARD} bytes of JSON")
        if not isinstance(model, str):
            raise RefusedError("model must be the ONNX file's bytes in base64")
        limit = self.settings.limits.max_bytes
        if len(model) > (limit + 2) // 3 * 4:
            raise UploadTooLargeError(f"the ONNX file is larger than the limit of "
                                      f"{limit / 2**20:g} MiB ({limit} bytes)")
        try:
            data = base64.b64decode(model, validate=True)
        except (binascii.Error, ValueError):
            raise RefusedError("model is not valid base64") from None
        if len(data) > limit:
            raise UploadTooLargeError(f"the ONNX file has {len(data)} bytes; the limit is "
                                      f"{limit / 2**20:g} MiB ({limit} bytes)")
        mine = [b for b in self.listed.values() if b["owner"] == user_id]
        if len(mine) >= self.settings.per_user:
            raise RefusedError(f"you have {len(mine)} bots listed, the most one person may "
                               f"have; withdraw one first")
        try:
            division = check_card(card)
        except RefusedUploadError as err:
            raise RefusedError(f"refused: {err}") from None
        if user_id in self.checking or self.check_slots.locked():
            raise BusyError("another upload is being checked; try again in a few seconds")
        self.checking.add(user_id)
        try:
            async with self.check_slots:
                report = await check_model(card, division, data, self.settings.limits)
        except RefusedUploadError as err:
            raise RefusedError(f"refused: {err}") from None
        finally:
            self.checking.discard(user_id)
        digest = hashlib.sha256(data).hexdigest()
        self.changed += 1
        bot_id = await self.in_lane(self._list, (
            user_id, name, division["game"], division["preset"], division["players"],
            json.dumps(card), base64.b64encode(data).decode(), digest, "listed", None,
            self.clock()))
        self.wake.set()
        return {"bot": bot_id, "spec": SPEC + str(bot_id), **division, **report}

    def _list(self, row: tuple) -> int:
        """Store an uploaded bot as listed, and the list read again."""
        bot_id = self.db.insert(
            "INSERT INTO arena_bots (owner, name, game, preset, players, card, model, digest,"
            " status, reason, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        self._reload()
        return bot_id

    async def withdraw(self, user_id: int, bot_id: Any) -> dict:
        """The owner takes a listed bot off the arena and every table's bot list."""
        bot = self.listed.get(bot_id) if isinstance(bot_id, int) else None
        if bot is None or bot["owner"] != user_id:
            raise NotFoundError(f"you have no listed bot {bot_id!r}")
        self.changed += 1
        await self.in_lane(self._delist_rows, bot_id, "withdrawn", "withdrawn by its owner")
        self._forget(bot_id)
        return {"bot": bot_id, "status": "withdrawn"}

    def _delist_rows(self, bot_id: int, status: str, reason: str) -> None:
        """Take a bot off the list in the database (withdrawn, disqualified): the deals it
        is playing are voided."""
        key = SPEC + str(bot_id)
        with self.store.transaction():
            self.db.execute("UPDATE arena_bots SET status = ?, reason = ? WHERE id = ?",
                            (status, reason, bot_id))
            for deal in self._deals("playing"):
                if key in deal["seats"]:
                    self._void(deal["id"])

    def _forget(self, bot_id: int) -> None:
        """A bot taken off the list: off every table's bot list, its process ended and its
        file removed (on the event loop)."""
        self.listed.pop(bot_id, None)
        bot = self.table_bots.pop(bot_id, None)
        if bot is not None:
            bot.close()
        for path in self.folder.glob(f"arena-{bot_id}-*"):
            path.unlink(missing_ok=True)

    def _void(self, deal_id: int) -> None:
        self.db.execute("DELETE FROM arena_games WHERE deal_id = ?", (deal_id,))
        self.db.execute("UPDATE arena_deals SET status = ? WHERE id = ?", ("void", deal_id))

    def mine(self, user_id: int) -> list[dict]:
        """Every bot the user uploaded, with its status and, if taken off, why."""
        rows = self.db.rows("SELECT id, name, game, preset, players, status, reason, created "
                            "FROM arena_bots WHERE owner = ? ORDER BY id", (user_id,))
        return [{**r, "spec": SPEC + str(r["id"])} for r in rows]

    # ---------------------------------------------- a seat option at tables
    def owns(self, spec: str) -> bool:
        return isinstance(spec, str) and spec.startswith(SPEC)

    def _listed(self, spec: str) -> dict | None:
        number = spec.removeprefix(SPEC)
        return self.listed.get(int(number)) if number.isdigit() and len(number) < 12 else None

    def specs(self, game: str) -> list[str]:
        return [SPEC + str(i) for i, b in self.listed.items() if b["game"] == game]

    def reason(self, spec: str, game: str, rules: Any) -> str | None:
        bot = self._listed(spec)
        if bot is None:
            return "it is not listed in the arena"
        if bot["game"] != game:
            return f"it plays {bot['game']}"
        players = get_game(game).num_players(rules)
        if players != bot["players"]:
            return f"it was trained for {bot['players']} players, not {players}"
        return None

    def describe(self, spec: str) -> str:
        bot = self._listed(spec)
        if bot is None:
            return "an uploaded bot no longer listed"
        return f"{bot['name']}, uploaded by {bot['owner_name']} ({bot['preset']} rules)"

    def label(self, key: str) -> str:
        """A participant's name for people."""
        if self.owns(key):
            bot = self._listed(key)
            return f"{bot['name']} (by {bot['owner_name']})" if bot else key
        return key

    async def act(self, spec: str, seed: int, view: Any, legal: Sequence[int]) -> int:
        """A move at a table, in the bot's own timed process (one move at a time per bot)."""
        bot_id = int(spec.removeprefix(SPEC))
        if self._listed(spec) is None:
            raise RefusedError(f"bot {spec} is no longer listed")
        path = await self.in_lane(self.materialize, bot_id)
        lock = self.table_locks.setdefault(bot_id, threading.Lock())

        def move() -> int:
            with lock:
                bot = self.table_bots.get(bot_id)
                if bot is None or not bot.alive:
                    bot = self.table_bots[bot_id] = ProcessBot(
                        path, self.listed[bot_id]["game"], self.settings.move_seconds,
                        memory_limit=self.settings.memory)
                bot.reset(seed)
                return bot.act(view, legal)

        return await asyncio.to_thread(move)

    def materialize(self, bot_id: int) -> str:
        """The spec of a listed bot's network written under the server's name for it (the
        card beside it names that file, and plays the network without search)."""
        bot = self.listed[bot_id]
        path = self.folder / f"arena-{bot_id}-{bot['digest'][:16]}.onnx"
        if not path.is_file():
            row = self.db.row("SELECT model FROM arena_bots WHERE id = ?", (bot_id,))
            card = {k: v for k, v in bot["card"].items() if k not in ("search", "onnx")}
            card.update(onnx=path.name, num_players=bot["players"])
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path.with_suffix(".json"), json.dumps(card).encode())
            write_atomic(path, base64.b64decode(row["model"]))
        return f"{path}:worlds=0"

    # ---------------------------------------------------------- divisions
    def lineup(self, game: str, preset: str, players: int) -> list[str]:
        """The division's participants: its strongest fast rule bots, random, the shipped
        networks of its preset, and the listed uploads."""
        g = get_game(game)
        changes = {} if g.num_players(g.get_rules(preset)) == players \
            else {"num_players": players}
        rules = g.get_rules(preset, **changes)
        offered = self.bots.offered(game, rules)
        rule_bots = [s for s in [*agents.strongest(game), "random"]
                     if s in offered and not self.bots.is_slow(s)]
        shipped = []
        for spec in shipped_checkpoints(game):
            card = json.loads((shipped_folder() / spec.removeprefix(PREFIX)).with_suffix(".json")
                              .read_text())
            if card.get("preset") == preset and card.get("num_players") == players:
                shipped.append(spec)
        uploads = [SPEC + str(i) for i, b in self.listed.items()
                   if (b["game"], b["preset"], b["players"]) == (game, preset, players)]
        return rule_bots + shipped + uploads

    def eval_spec(self, key: str) -> str:
        """What the match worker builds for a participant."""
        if self.owns(key):
            return self.materialize(int(key.removeprefix(SPEC)))
        if key.startswith(PREFIX):
            return f"{shipped_folder() / key.removeprefix(PREFIX)}:worlds=0"
        return key

    def _eligible(self, key: str) -> bool:
        return not self.owns(key) or self._listed(key) is not None

    def _deals(self, status: str, division: tuple | None = None) -> list[dict]:
        sql = "SELECT * FROM arena_deals WHERE status = ?"
        params: tuple = (status,)
        if division is not None:
            sql += " AND game = ? AND preset = ? AND players = ?"
            params += tuple(division)
        rows = self.db.rows(sql + " ORDER BY id", params)
        for r in rows:
            r["seats"] = json.loads(r["seats"])
        return rows

    def _counted(self, division: tuple) -> list[dict]:
        """The division's finished deals whose players are all still listed."""
        return [d for d in self._deals("done", division)
                if all(self._eligible(k) for k in d["seats"])]

    def divisions(self) -> list[dict]:
        """Every game's presets at their player counts, and any other with uploads."""
        out, seen = [], set()
        keys = []
        for name in game_names():
            g = get_game(name)
            keys += [(name, p, g.num_players(g.get_rules(p))) for p in g.presets]
        keys += [(b["game"], b["preset"], b["players"]) for b in self.listed.values()]
        for key in keys:
            if key in seen:
                continue
            seen.add(key)
            uploads = sum((b["game"], b["preset"], b["players"]) == key
                          for b in self.listed.values())
            out.append({"game": key[0], "preset": key[1], "players": key[2],
                        "uploads": uploads})
        return out

    def leaderboard(self, game: Any, preset: Any, players: Any) -> dict:
        """Ranks, ratings with 95% intervals, and head-to-head rows of one division."""
        division = self._division(game, preset, players)
        deals = self._counted(division)
        ids = [d["id"] for d in deals]
        records = []
        for chunk in range(0, len(ids), 500):
            part = ids[chunk:chunk + 500]
            marks = ",".join("?" * len(part))
            records += [json.loads(r["record"]) for r in self.db.rows(
                f"SELECT record FROM arena_games WHERE deal_id IN ({marks})", tuple(part))]
        stats = {s.name: s for s in bot_stats(records)}
        lineup = self.lineup(*division)
        deals_of = {k: sum(k in d["seats"] for d in deals) for k in lineup}
        rows = []
        for key in lineup:
            s = stats.get(key)
            bot = self._listed(key) if self.owns(key) else None
            rows.append({
                "bot": key, "name": self.label(key),
                "kind": "uploaded" if bot else "shipped network" if key.startswith(PREFIX)
                else "rule bot", "owner": bot["owner_name"] if bot else None,
                "deals": deals_of[key], "games": s.games if s else 0,
                **({m: getattr(s, m).to_dict() for m in ("win", "score", "rank")} if s else
                   {"win": None, "score": None, "rank": None})})
        for r in rows:
            r["provisional"] = r["deals"] < self.settings.provisional
        rows.sort(key=lambda r: (r["rank"] is None, r["provisional"],
                                 r["rank"]["mean"] if r["rank"] else 0,
                                 -(r["score"]["mean"] if r["score"] else 0)))
        h2h = head_to_head(records)
        playing = sum(1 for _ in self._deals("playing", division))
        return {"game": division[0], "preset": division[1], "players": division[2],
                "deals": len(deals), "games": len(records), "playing": playing,
                "target": self.settings.deals, "provisional": self.settings.provisional,
                "bots": rows,
                "head_to_head": [{"bot": a, "vs": b, **e.to_dict()}
                                 for (a, b), e in sorted(h2h.items())]}

    def _division(self, game: Any, preset: Any, players: Any) -> tuple[str, str, int]:
        for d in self.divisions():
            if (d["game"], d["preset"], d["players"]) == (game, preset, players):
                return game, preset, players
        raise NotFoundError(f"no arena for {_short(game)} {_short(preset)} with "
                            f"{_short(players)} players")

    # ------------------------------------------------------------ matches
    def start(self) -> None:
        if self.settings.matches:
            self.task = asyncio.get_running_loop().create_task(self.run())

    def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
        if self.pool is not None:
            workers = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
            self.pool = None
        for bot in self.table_bots.values():
            bot.close()
        self.table_bots.clear()

    async def run(self) -> None:
        """Play the arena's games one after another, for as long as the server runs."""
        loop = asyncio.get_running_loop()
        while not self.closed:
            try:
                if self.lanes is None:
                    self._reload()  # another server on the database may have listed or withdrawn
                    job = self.next_job()
                else:  # the same, in the arena's database lane: the sockets go on meanwhile
                    seen = self.changed
                    job = await self.in_lane(self._look)
                    if self.changed != seen:  # listed or withdrawn here meanwhile: a new
                        continue  # look, which reads the list again (in the lane)
            except Exception:
                log.exception("the arena could not pick its next game")
                job = None
            if job is None:
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), IDLE)
                continue
            if self.pool is None:
                self.pool = ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker, initargs=((),))
            try:
                result = await loop.run_in_executor(self.pool, play_arena_game, job)
            except BrokenProcessPool:
                log.warning("the arena's match worker died; starting another")
                self.pool = None
                continue
            try:
                gone = await self.in_lane(self.record, job, result)
            except Exception:
                log.exception("the arena could not store a game")
                continue
            if gone is not None:
                self.changed += 1
                self._forget(gone)

    def next_job(self) -> dict | None:
        """The next game: a missing rotation of an unfinished deal, else a new deal for
        the listed bot with the fewest counted deals below the target."""
        for deal in self._deals("playing"):
            if not all(self._eligible(k) for k in deal["seats"]):
                self._void(deal["id"])
                continue
            done = {r["rotation"] for r in self.db.rows(
                "SELECT rotation FROM arena_games WHERE deal_id = ?", (deal["id"],))}
            for rotation in range(len(deal["seats"])):
                if rotation not in done:
                    return self._job(deal, rotation)
            self.db.execute("UPDATE arena_deals SET status = ? WHERE id = ?",
                            ("done", deal["id"]))
        needs = []
        for bot_id, bot in self.listed.items():
            division = (bot["game"], bot["preset"], bot["players"])
            key = SPEC + str(bot_id)
            count = sum(key in d["seats"] for d in self._counted(division))
            if count < self.settings.deals:
                needs.append((count, bot_id, division, key))
        if not needs:
            return None
        _, _, division, key = min(needs)
        deal = self._new_deal(division, key)
        return None if deal is None else self._job(deal, 0)

    def _new_deal(self, division: tuple, focus: str) -> dict | None:
        lineup = self.lineup(*division)
        others = [k for k in lineup if k != focus]
        if not others:
            return None
        counted = self._counted(division)
        number = 1 + max([r["deal"] for r in self.db.rows(
            "SELECT deal FROM arena_deals WHERE game = ? AND preset = ? AND players = ?",
            division)] or [-1])
        rng = np.random.default_rng([number, len(lineup)])
        tiebreak = {k: float(rng.random()) for k in others}
        shared = {k: sum(focus in d["seats"] and k in d["seats"] for d in counted)
                  for k in others}
        total = {k: sum(k in d["seats"] for d in counted) for k in others}
        ranked = sorted(others, key=lambda k: (shared[k], total[k], tiebreak[k]))
        seats = [focus] + [ranked[i % len(ranked)] for i in range(division[2] - 1)]
        seats = [seats[i] for i in rng.permutation(len(seats))]
        try:
            deal_id = self.db.insert(
                "INSERT INTO arena_deals (game, preset, players, deal, seats, status, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", (*division, number, json.dumps(seats),
                                                  "playing", self.clock()))
        except Exception as err:  # another server took this deal number a moment ago
            log.warning("arena deal %d of %s not started: %s", number, division, err)
            return None
        return {"id": deal_id, "game": division[0], "preset": division[1],
                "players": division[2], "deal": number, "seats": seats}

    def _job(self, deal: dict, rotation: int) -> dict:
        seats = deal["seats"]
        return {"deal_id": deal["id"], "game": deal["game"], "preset": deal["preset"],
                "deal": deal["deal"], "rotation": rotation, "seats": seats,
                "specs": [self.eval_spec(k) for k in seats],
                "own": [self.eval_spec(k) for k in seats if self.owns(k)],
                "move_seconds": self.settings.move_seconds, "memory": self.settings.memory,
                "max_hands": self.settings.max_hands}

    def record(self, job: dict, result: dict) -> int | None:
        """Store a finished game, or disqualify the bot that failed and void its deal; the
        id of a bot disqualified (for ``_forget``), else None."""
        error = result.get("error")
        live = self.db.row("SELECT status FROM arena_deals WHERE id = ?", (job["deal_id"],))
        if live is None or live["status"] != "playing":
            return None  # voided meanwhile (a player withdrawn or disqualified)
        if error is None:
            self.db.execute("INSERT INTO arena_games (deal_id, rotation, record) VALUES "
                            "(?, ?, ?) ON CONFLICT DO NOTHING",
                            (job["deal_id"], job["rotation"], json.dumps(result)))
            return None
        key = error.get("bot")
        if key is not None and self.owns(key) and self._listed(key) is not None:
            log.warning("arena bot %s disqualified: %s", key, error["reason"])
            bot_id = int(key.removeprefix(SPEC))
            self._delist_rows(bot_id, "disqualified", f"{error['kind']}: {error['reason']}")
            return bot_id
        log.error("arena game failed (deal %d): %s", job["deal_id"], error["reason"])
        self._void(job["deal_id"])
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
