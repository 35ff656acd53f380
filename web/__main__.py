"""Serve the web table: ``python -m web --port 8000 --db sqlite:///runs/web/web.db``."""

from __future__ import annotations

import argparse
import logging
import os

import uvicorn

from web.app import DEFAULT_DB, create_app


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m web", description=__doc__)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=os.environ.get("CARDRL_DB", DEFAULT_DB),
                   help="sqlite:///file.db (default) or postgresql://... (env CARDRL_DB)")
    p.add_argument("--bot-delay", type=float, default=0.0,
                   help="seconds a bot waits before each move (pacing for people)")
    p.add_argument("--tick", type=float, default=1.0, help="seconds between schedule checks")
    p.add_argument("--secure-cookies", action="store_true", help="cookies only over HTTPS")
    p.add_argument("--log-level", default="info")
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper())
    app = create_app(args.db, bot_delay=args.bot_delay, tick_seconds=args.tick,
                     secure_cookies=args.secure_cookies)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                ws_max_size=1 << 16)


if __name__ == "__main__":
    main()
