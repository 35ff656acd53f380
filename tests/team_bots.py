"""Team bot files for the tournament tests (local and on Ray): modules a team would hand
in, each failing in one way, written into a test's folder by ``write_bots``."""

from __future__ import annotations

from pathlib import Path

# A good team module that keeps its own state through the hooks and checks it against
# the view: any wrong or missing hook call makes it raise, and so be disqualified.
KEEPER = '''
import time

from cardrl.agents.base import Bot

class Keeper(Bot):
    def start_game(self, seat, num_players, parameters):
        self.seat, self.n = seat, num_players
        self.values, self.total = parameters["values"], parameters["total"]
        self.moves = 0

    def receive_cards(self, cards):
        self.hand = list(cards)

    def observe_move(self, seat, action):
        assert seat != self.seat
        self.total += self.values[(action >> 1) % 13][action & 1]
        self.moves += 1

    def act(self, view, legal):
        time.sleep(0.002)  # a little thought, so a tournament takes a moment to kill
        assert view.seat == self.seat and view.num_players == self.n
        assert self.hand == list(view.hand) and self.total == view.total
        assert self.moves == len(view.plays)
        a = legal[-1]
        self.hand.remove(a >> 1)
        self.total += self.values[(a >> 1) % 13][a & 1]
        self.moves += 1
        return a

    def report_score(self):
        return self.moves
'''
RAISER = '''
from cardrl.agents.base import Bot

class Raiser(Bot):
    def act(self, view, legal):
        if len(view.plays) >= 1:
            raise RuntimeError("team red forgot a case")
        return legal[0]
'''
ILLEGAL = '''
from cardrl.agents.base import Bot

class Illegal(Bot):
    pass

def make_bot():
    bot = Illegal()
    bot.act = lambda view, legal: next(a for a in range(104) if a not in legal)
    return bot
'''
SLEEPER = '''
import time
from cardrl.agents.base import Bot

class Sleeper(Bot):
    def act(self, view, legal):
        time.sleep(30)
        return legal[0]
'''


def write_bots(tmp_path: Path, **sources: str) -> dict[str, str]:
    paths = {}
    for name, text in sources.items():
        path = tmp_path / "teams" / f"{name}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        paths[name] = str(path)
    return paths
