"""The opponent pool: who sits at the seats the learner does not (self, snapshots, rule bots).

A mix is written like ``"self@0.8,snapshot@0.2"``: comma-separated entries
``what@weight``, where *what* is ``self`` (the current policy, refreshed after
every update), ``snapshot`` (a frozen earlier policy, drawn uniformly from the
pool's last ``max_snapshots`` snapshots; the current policy while there is none),
``average`` (a snapshot drawn uniformly from *every* snapshot taken so far, kept as a
reservoir sample of ``max_average``: the opponent then plays the time-average of past
policies, as fictitious self-play does, where the latest snapshots alone chase each
other round a cycle; ``Reservoir``), ``greedy`` (a snapshot as ``snapshot`` draws it,
played by its argmax: a deterministic opponent, as the rule bots of a game are, for a
learner to find and exploit without ever meeting a rule bot), a registry bot spec
(``spades/expert:nil=set-safe``), or ``rules`` (the game's strongest rule bots,
``cardrl.agents.strongest``, the weight split evenly). Each opponent seat draws its
entry independently at every episode (``cardrl.train.selfplay``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.agents.registry import check_bot
from cardrl.eval.config import split_bot_list

POLICY_KINDS = ("self", "snapshot", "average", "greedy")


@dataclass(frozen=True)
class MixEntry:
    what: str  # a bot spec or one of POLICY_KINDS
    weight: float


def rule_bots(game: str) -> list[str]:
    """Every registered bot of ``game`` (``<game>/...``)."""
    return [n for n in agents.names(game) if n.startswith(f"{game}/")]


def strongest_bots(game: str) -> list[str]:
    """The game's strongest rule bots, best first (``cardrl.agents.strongest``): the ones a learned
    bot is judged against."""
    return list(agents.strongest(game))


def parse_mix(text: str, game: str) -> list[MixEntry]:
    """``'self@0.5,spades/expert@0.5'`` -> entries with weights summing to 1.

    Raises ``ValueError`` naming the bad entry: an unknown bot, a bot of
    another game, a weight that is not a positive number.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"an opponent mix is like 'self@0.5,rules@0.5', got {text!r}")
    entries: list[MixEntry] = []
    for item in split_bot_list(text):  # commas inside a bot's options stay with it
        what, at, weight_text = item.rpartition("@")
        if not at:
            what, weight_text = item, "1"
        what = what.strip()
        try:
            weight = float(weight_text)
        except ValueError:
            raise ValueError(f"bad weight {weight_text!r} in opponent entry {item!r}") from None
        if not weight > 0:
            raise ValueError(f"opponent weight must be positive, got {item!r}")
        if what == "rules":
            bots = strongest_bots(game)
            entries += [MixEntry(b, weight / len(bots)) for b in bots]
            continue
        if what not in POLICY_KINDS:
            check_bot(what, game)
        entries.append(MixEntry(what, weight))
    total = sum(e.weight for e in entries)
    return [MixEntry(e.what, e.weight / total) for e in entries]


class OpponentPool:
    """The mix an episode's opponents are drawn from, and how many snapshots it keeps."""

    def __init__(self, mix: list[MixEntry], max_snapshots: int = 10) -> None:
        if not mix:
            raise ValueError("an opponent pool needs at least one entry")
        self.mix = list(mix)
        self.max_snapshots = max_snapshots
        self._p = np.array([e.weight for e in self.mix])

    @classmethod
    def parse(cls, text: str, game: str, max_snapshots: int = 10) -> OpponentPool:
        return cls(parse_mix(text, game), max_snapshots)

    @property
    def has_policies(self) -> bool:
        """Whether some entry is played by a network (one of ``POLICY_KINDS``)."""
        return any(e.what in POLICY_KINDS for e in self.mix)

    def draw_entry(self, rng: np.random.Generator) -> str:
        """One seat's opponent for an episode: one of ``POLICY_KINDS`` or a bot spec."""
        return self.mix[int(rng.choice(len(self.mix), p=self._p))].what

    def make_bot(self, spec: str) -> Bot:
        """A new bot of ``spec`` for one seat (rule bots keep per-seat tracking state)."""
        return agents.make(spec)


class Reservoir:
    """A uniform sample of at most ``size`` of all the items offered so far (reservoir
    sampling): the ``average`` entry's snapshots, memory bounded however long a run is.

    ``offer`` returns the slot the item took (appended or replacing), or None when it was
    left out; the draw is seeded by ``seed`` and the count, so a resumed run repeats it.
    """

    def __init__(self, size: int, seed: int = 0) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"a reservoir holds a positive int of items, got {size!r}")
        self.size, self.seed = size, seed
        self.items: list = []
        self.seen = 0

    def offer(self, item) -> int | None:
        self.seen += 1
        if len(self.items) < self.size:
            self.items.append(item)
            return len(self.items) - 1
        slot = int(np.random.default_rng([self.seed, self.seen]).integers(self.seen))
        if slot >= self.size:
            return None
        self.items[slot] = item
        return slot
