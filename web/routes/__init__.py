"""The server's routes, one module per group; ``create_app`` serves ``ROUTES``.

    pages.py      /  /favicon.ico  /static/...  and the websocket /ws (the live table)
    accounts.py   /api/signup  /api/signin  /api/signout  /api/me  /api/session  /api/guest
    tables.py     /api/games  /api/lobby  /api/bots  /api/tables[/{id}/sit|stand|again|invite]
                  /api/invite  /api/quickmatch  /api/schedule
    arena.py      /api/arena[/leaderboard|/mine|/bots[/{id}/withdraw]]  (the bot arena)
"""

from cardrl.web.routes import accounts, arena, pages, tables

ROUTES = [*pages.ROUTES, *accounts.ROUTES, *tables.ROUTES, *arena.ROUTES]
