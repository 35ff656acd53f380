"""Serve the web table: ``python -m cardrl.web --port 8000 --db sqlite:///runs/web/web.db``."""

from __future__ import annotations

import argparse
import logging
import os

import uvicorn

from cardrl.web.app import DEFAULT_DB, create_app
from cardrl.web.arena import ArenaSettings
from cardrl.web.arena_check import Limits
from cardrl.web.hub import ABANDON, GRACE, LEASE, TURN


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="cardrl web", description=__doc__)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=os.environ.get("CARDRL_DB", DEFAULT_DB),
                   help="sqlite:///file.db (default) or postgresql://... (env CARDRL_DB)")
    p.add_argument("--bot-delay", type=float, default=0.0,
                   help="seconds a bot waits before each move (pacing for people)")
    p.add_argument("--tick", type=float, default=1.0,
                   help="seconds between checks of the schedule and the turn clocks")
    p.add_argument("--bot", action="append", dest="bots", metavar="SPEC",
                   help="a bot tables may seat, once per bot: a registry name (options allowed: "
                        "spades/search:worlds=8) or checkpoint:<file in checkpoints/>; "
                        "default: every registered bot and shipped checkpoint")
    p.add_argument("--bot-processes", type=int, default=2,
                   help="worker processes for the bots that think for long (search)")
    p.add_argument("--turn-seconds", type=float, default=TURN,
                   help="a person's time for a move at the table before a bot plays for them")
    p.add_argument("--grace-seconds", type=float, default=GRACE,
                   help="a person's time for a move once gone from the table")
    p.add_argument("--abandon-minutes", type=float, default=ABANDON / 60,
                   help="a table with no seated person at it this long is closed")
    p.add_argument("--lease-seconds", type=float, default=LEASE,
                   help="PostgreSQL: how long a table's lease lasts unrenewed, so how soon "
                        "another server takes over the tables of one that died")
    p.add_argument("--name", help="PostgreSQL: the server's name in the table leases (a "
                                   "random part is added), e.g. the host and port")
    p.add_argument("--db-lanes", type=int, default=8,
                   help="PostgreSQL: threads (each with a connection) that store moves and "
                        "tell the other servers, off the event loop")
    p.add_argument("--public-url",
                   help="PostgreSQL: the address pages reach this server at, e.g. "
                        "http://host:8001: a page whose server dies goes on through another "
                        "live one, and the servers accept each other's pages")
    p.add_argument("--db-delay", type=float, default=0.0,
                   help="for measuring only: seconds added to every database statement")
    p.add_argument("--secure-cookies", action="store_true", help="cookies only over HTTPS")
    p.add_argument("--ws-deflate", action="store_true",
                   help="compress websocket messages (fewer bytes, more server CPU per move)")
    arena = ArenaSettings()
    p.add_argument("--arena-dir", default=str(arena.folder),
                   help="where the arena writes uploaded networks to play them (the database "
                        "keeps the uploads)")
    p.add_argument("--arena-deals", type=int, default=arena.deals,
                   help="deals each uploaded bot plays in the arena (each in every seat "
                        "rotation); 0: no matches")
    p.add_argument("--arena-provisional", type=int, default=arena.provisional,
                   help="below this many deals a leaderboard row is provisional (ranked "
                        "after the measured ones)")
    p.add_argument("--arena-move-seconds", type=float, default=arena.move_seconds,
                   help="an uploaded bot's time for a move, in matches and at tables")
    p.add_argument("--arena-max-mb", type=float, default=arena.limits.max_bytes / 2**20,
                   help="largest ONNX file an upload may have, in MiB")
    p.add_argument("--log-level", default="info")
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper())
    app = create_app(args.db, bot_delay=args.bot_delay, tick_seconds=args.tick,
                     secure_cookies=args.secure_cookies, bots=args.bots,
                     bot_processes=args.bot_processes, turn=args.turn_seconds,
                     grace=args.grace_seconds, abandon=args.abandon_minutes * 60,
                     lease=args.lease_seconds, name=args.name, db_lanes=args.db_lanes,
                     db_delay=args.db_delay, public_url=args.public_url,
                     arena=ArenaSettings(
                         folder=args.arena_dir, deals=args.arena_deals,
                         provisional=args.arena_provisional,
                         matches=args.arena_deals > 0, move_seconds=args.arena_move_seconds,
                         limits=Limits(max_bytes=int(args.arena_max_mb * 2**20))))
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                ws_max_size=1 << 16, ws_per_message_deflate=args.ws_deflate)


if __name__ == "__main__":
    main()
