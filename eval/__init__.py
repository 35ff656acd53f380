"""Evaluation: duplicate tournaments of bots at any registered game.

    config.py      what a tournament is (game, preset, rules, lineup, seed) and its seeds
    play.py        play one (deal, rotation) game and describe it as a JSON log
    pool.py        play games in this process or a spawn pool of workers
    logs.py        the tournament directory: atomic per-game logs, resume checks
    stats.py       ranks, win shares, duplicate-honest 95% intervals, head-to-head
    report.py      the summary dict and the aligned text table
    tournament.py  run_tournament() and the CLI (python -m eval.tournament)
    demo.py        the main job: the Spades rule bots' tournament (make demo)
"""
