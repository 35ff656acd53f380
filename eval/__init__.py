"""Evaluation: duplicate tournaments of bots at any registered game, with disqualification.

    config.py      what a tournament is (game, preset, rules, lineup, seats, seed) and its seeds
    schedule.py    each deal's table: the whole lineup, or balanced draws from a larger one
    play.py        play one (deal, rotation) game, calling the bots' hooks; its JSON log
    bot_process.py a bot in its own process, timed (bot files; every bot with isolate),
                   talking to it over the bot server's JSON lines (agents.server)
    pool.py        play games in this process or a spawn pool of workers
    logs.py        the tournament directory: atomic per-game logs, resume checks,
                   disqualifications and the void games of earlier rounds
    stats.py       ranks, win shares, duplicate-honest 95% intervals, head-to-head
    report.py      the summary dict and the aligned text table
    tournament.py  run_tournament() and the CLI (python -m cardrl.eval.tournament)
    demo.py        the main job: the Spades rule bots' tournament (make demo)
"""
