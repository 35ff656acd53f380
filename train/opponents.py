"""The opponent pool: who sits at the seats the learner does not (rule bots, self, snapshots).

A mix is written like ``"self@0.5,snapshot@0.2,rules@0.3"``: comma-separated
entries ``what@weight``, where *what* is a registry bot spec
(``spades/expert:nil=set-safe``), ``self`` (the current policy, pushed to the
workers after every update), ``snapshot`` (a frozen earlier policy, drawn
uniformly from the pool's snapshots) or ``rules`` (the game's strongest rule
bots, ``agents.strongest(game)``, the weight split evenly). Each opponent seat
draws its entry independently at every episode. Until a policy has been
pushed, ``self`` and ``snapshot`` seats play uniformly random legal actions;
with no snapshot yet, ``snapshot`` plays as ``self``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import agents
from agents.base import Bot
from train.numpy_policy import NumpyPolicy

POLICY_KINDS = ("self", "snapshot")


@dataclass(frozen=True)
class MixEntry:
    what: str  # a bot spec, "self" or "snapshot"
    weight: float


def rule_bots(game: str) -> list[str]:
    """Every registered bot of ``game`` (``<game>/...``)."""
    return [n for n in agents.names(game) if n.startswith(f"{game}/")]


def strongest_bots(game: str) -> list[str]:
    """The game's strongest rule bots, best first (``agents.strongest``): the ones a learned
    bot trains against with ``rules`` and is judged against. Every rule bot if the game's
    bot package names none."""
    try:
        return list(agents.strongest(game))
    except (ValueError, AttributeError, ImportError):
        return rule_bots(game)


def parse_mix(text: str, game: str) -> list[MixEntry]:
    """``'self@0.5,spades/expert@0.5'`` -> entries with weights summing to 1.

    Raises ``ValueError`` naming the bad entry: an unknown bot, a bot of
    another game, a weight that is not a positive number.
    """
    from eval.config import split_bot_list  # commas inside a bot's options stay with it

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"an opponent mix is like 'self@0.5,rules@0.5', got {text!r}")
    entries: list[MixEntry] = []
    for item in split_bot_list(text):
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
            if not bots:
                raise ValueError(f"opponent 'rules': no rule bots are registered for {game!r}")
            entries += [MixEntry(b, weight / len(bots)) for b in bots]
            continue
        if what not in POLICY_KINDS:
            try:
                bot = agents.make(what)
            except ValueError as err:
                raise ValueError(f"bad opponent {what!r}: {err}") from None
            if bot.game not in (None, game):
                raise ValueError(f"opponent {what!r} plays {bot.game}, not {game}")
        entries.append(MixEntry(what, weight))
    total = sum(e.weight for e in entries)
    return [MixEntry(e.what, e.weight / total) for e in entries]


class BotSeat:
    """A registry bot at a seat: it sees the seat's view and the legal actions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name

    def reset(self, seed: int) -> None:
        self.bot.reset(seed)

    def act(self, aec: Any, seat: int) -> int:
        state = aec.state_obj
        return self.bot.act(state.view(seat), state.legal_actions())


class PolicySeat:
    """A numpy policy at a seat: it sees the seat's observation and mask, samples an action."""

    def __init__(self, name: str, policy: NumpyPolicy | None, rng: np.random.Generator,
                 deterministic: bool = False) -> None:
        self.name, self.policy, self.rng, self.deterministic = name, policy, rng, deterministic

    def reset(self, seed: int) -> None:
        pass

    def act(self, aec: Any, seat: int) -> int:
        obs = aec.observe(aec.agent_selection)
        mask = obs["action_mask"]
        if self.policy is None:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.integers(len(legal))])
        return self.policy.act(obs["observation"], mask, self.rng, self.deterministic)


class OpponentPool:
    """Draws the opponents of an episode from a mix; holds the current policy and snapshots."""

    def __init__(self, mix: list[MixEntry], rng: np.random.Generator,
                 max_snapshots: int = 10) -> None:
        self.mix = list(mix)
        self.rng = rng
        self.max_snapshots = max_snapshots
        self._p = np.array([e.weight for e in self.mix])
        self._bots: dict[str, BotSeat] = {}  # one bot object per spec, reused
        self.current: NumpyPolicy | None = None
        self.snapshots: list[NumpyPolicy] = []
        self.seeds: dict[int, int] = {}  # seat -> the seed its opponent was last reset with

    def set_policy(self, policy: NumpyPolicy | None) -> None:
        self.current = policy

    def draw_entry(self, rng: np.random.Generator) -> str:
        """One seat's opponent for an episode: ``self``, ``snapshot`` or a bot spec."""
        return self.mix[int(rng.choice(len(self.mix), p=self._p))].what

    def make_bot(self, spec: str) -> Bot:
        """A new bot of ``spec`` for one seat (rule bots keep per-seat tracking state)."""
        return agents.make(spec)

    def add_snapshot(self, policy: NumpyPolicy) -> None:
        self.snapshots.append(policy)
        del self.snapshots[:-self.max_snapshots]

    def draw(self, seats: list[int]) -> dict[int, Any]:
        """One opponent per seat in ``seats`` (a bot spec may sit at several seats: each gets
        its own bot object, since rule bots keep per-seat tracking state)."""
        chosen: dict[int, Any] = {}
        self.seeds = {}
        for k, seat in enumerate(seats):
            what = self.mix[int(self.rng.choice(len(self.mix), p=self._p))].what
            if what == "self" or (what == "snapshot" and not self.snapshots):
                chosen[seat] = PolicySeat("self", self.current, self.rng)
            elif what == "snapshot":
                pick = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                chosen[seat] = PolicySeat("snapshot", pick, self.rng)
            else:
                key = f"{what}#{k}"
                if key not in self._bots:
                    self._bots[key] = BotSeat(agents.make(what))
                chosen[seat] = self._bots[key]
            self.seeds[seat] = int(self.rng.integers(2**31))
            chosen[seat].reset(self.seeds[seat])
        return chosen
