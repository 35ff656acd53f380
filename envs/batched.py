"""The batched API: N games of one kind stepped in one call, in one process.

    from cardrl.envs.batched import BatchedGames
    games = BatchedGames("spades", 64, preset="killer")
    batch = games.reset(seed=0)           # game i's episodes are dealt from seed 0 + i, + 64, ...
    while training:
        actions = policy(batch.obs, batch.masks)     # one network call for every game
        batch = games.step(actions)       # rewards[i, seat], dones[i]; finished games restart

``batch.obs[i]`` and ``batch.masks[i]`` are what the seat to act in game i
(``batch.seats[i]``) observes, exactly the PettingZoo env's ``last()`` for that
agent on the same seed; ``batch.rewards[i, s]`` is what the AEC env's
``rewards[player_s]`` holds after that step (hand rewards, the win bonus, a
penalty); ``batch.dones[i]`` says game i's episode ended on this step. A game
whose episode ends restarts at once with its next seed (``auto_reset``), so
``obs[i]`` is then the new episode's first decision; ``episode_seeds[i]`` is the
seed of the episode game i plays now. Given deals replay as in the AEC env
(``reset(deals=...)``, or ``restart(i, seed, deal)`` for one game). Training,
search and tournaments use it to make one network call per tick for all games.

Options are the AEC env's (``cardrl.envs.aec``), checked by the same code.

Where the game has a compiled core for these rules and this observation kind
(``envs/<game>/compiled.py``, ``cardrl.envs.compiled``), the games are arrays stepped in
numba loops, with the same results; ``states[i]`` is then the engine state rebuilt
on demand from the episode's actions. ``compiled=False`` keeps the Python engines;
``python_reason`` says why a game runs on them.

``MixedBatchedGames`` offers the same interface over several table sizes (one
``BatchedGames`` per count; ``counts[i]`` is game i's), so one network trains on all of
them (``make_games``; the trainers' ``player_counts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from cardrl.envs.compiled import CompiledGames, find_core
from cardrl.envs.contracts import EngineState, Observer
from cardrl.envs.games import DEFAULT_OBSERVATION, Game, get_game
from cardrl.envs.rewards import MAX_EPISODE_HANDS, Payout


class Batch(NamedTuple):
    """One tick of N games (see the module docstring)."""

    obs: np.ndarray  # (N, obs_size) float32: the observation of the seat to act
    masks: np.ndarray  # (N, num_actions) bool: its legal actions
    seats: np.ndarray  # (N,) int64: the seat to act; -1 for a finished game not restarted
    rewards: np.ndarray  # (N, num_players) float32: what each seat got on this step
    dones: np.ndarray  # (N,) bool: the episode ended on this step
    truncated: np.ndarray  # (N,) bool: of those, the ones cut at ``max_episode_hands``


class BatchedGames:
    """``num_games`` games of ``game`` with the PettingZoo env's options (see module doc)."""

    def __init__(self, game: str | Game, num_games: int, preset: str | None = None,
                 rules: Any = None, observation: str = DEFAULT_OBSERVATION,
                 episode: str = "game", score_scale: float | None = None,
                 relative_score: bool = True, win_reward: float = 1.0,
                 illegal_action: str = "raise", illegal_penalty: float = -1.0,
                 max_episode_hands: int | None = MAX_EPISODE_HANDS,
                 auto_reset: bool = True, compiled: bool = True, hand_reward: str = "points",
                 **rule_changes: Any) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        if not isinstance(auto_reset, bool):
            raise ValueError(f"auto_reset must be True or False, got {auto_reset!r}")
        if not isinstance(compiled, bool):
            raise ValueError(f"compiled must be True or False, got {compiled!r}")
        self.rules = self.game.make_rules(preset, rules, **rule_changes)
        self.encoder = self.game.encoder(observation)
        self.payout = Payout.checked(self.game.score_scale(self.rules), episode, score_scale,
                                     relative_score, win_reward, illegal_action, illegal_penalty,
                                     max_episode_hands, hand_reward, self.game.hand_worth)
        self.num_games, self.auto_reset = num_games, auto_reset
        self.num_players = n = self.game.num_players(self.rules)
        self.num_actions = self.game.num_actions
        self.obs_size = self.encoder.size(n)
        self.counts = np.full(num_games, n, dtype=np.int64)  # each game's table size
        # game i's engine state (None before reset): the Python path's own list, or the core's
        self._states: list[EngineState | None] = [None] * num_games
        self.states: Sequence[EngineState | None] = self._states
        self.episode_seeds = np.zeros(num_games, dtype=np.int64)
        self._episodes = np.zeros(num_games, dtype=np.int64)  # episodes started per game
        self._hands = [0] * num_games  # hands scored per game
        self._base_seed = 0
        self._rng = np.random.default_rng()
        self.obs = np.zeros((num_games, self.obs_size), dtype=np.float32)
        self.masks = np.zeros((num_games, self.num_actions), dtype=bool)
        self.seats = np.full(num_games, -1, dtype=np.int64)
        self.truncated = np.zeros(num_games, dtype=bool)  # the last episode end was a cut
        self._live = [False] * num_games  # the game's episode goes on
        core, self.python_reason = find_core(self.game, self.rules, observation) if compiled \
            else (None, "compiled=False")
        self._core = None if core is None else CompiledGames(
            self.game, core, self.rules, observation, num_games, self.payout, auto_reset,
            self.obs, self.masks, self.seats, self.episode_seeds)
        if self._core is not None:
            self.states = self._core.states
        self._observers: list[Observer] = [] if self._core is not None else [
            self.encoder.make_observer(n) for _ in range(num_games)]

    @property
    def live(self) -> list[bool]:
        """Whether each game's episode goes on (False: it waits for ``restart``)."""
        return self._live if self._core is None else self._core.live

    # ------------------------------------------------------------- games
    def restart(self, i: int, seed: int, deal: Any = None) -> None:
        """Start game ``i`` afresh from ``seed`` (and ``deal``, in the game's deal format)."""
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        if self._core is not None:
            self._core.restart(i, int(seed), deal)
            return
        state = self.game.state(self.rules, int(seed), deal=deal)  # checks the deal first
        self._states[i] = state
        self._live[i] = True
        self.episode_seeds[i] = seed
        self._hands[i] = len(state.results)
        self._observers[i].reset(state)
        self._write(i)

    def _next_seed(self, i: int) -> int:
        """Game ``i``'s k-th episode is dealt from ``seed + i + k * num_games``."""
        seed = self._base_seed + i + int(self._episodes[i]) * self.num_games
        self._episodes[i] += 1
        return seed

    def reset(self, seed: int | None = None, deals: Sequence | None = None) -> Batch:
        """Every game afresh: game ``i`` from ``seed + i`` (then ``+ num_games`` per episode;
        ``seed`` None draws one), dealt ``deals[i]`` if given."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
        if deals is not None and (isinstance(deals, str | bytes)
                                  or len(deals) != self.num_games):
            raise ValueError(f"deals must be a list of {self.num_games} deals (None for a "
                             f"dealt one), got {deals!r}")
        self._base_seed = int(seed)
        self._rng = np.random.default_rng(self._base_seed)
        self._episodes[:] = 0
        if self._core is not None:
            self._core.reset(self._base_seed, deals)
        for i in range(self.num_games if self._core is None else 0):
            self.restart(i, self._next_seed(i), None if deals is None else deals[i])
        return Batch(self.obs.copy(), self.masks.copy(), self.seats.copy(),
                     np.zeros((self.num_games, self.num_players), dtype=np.float32),
                     np.zeros(self.num_games, dtype=bool), np.zeros(self.num_games, dtype=bool))

    def _write(self, i: int) -> None:
        """Game ``i``'s row of the observations, masks and seats."""
        state = self._states[i]
        assert state is not None  # restarted
        seat = state.current_player
        mask = self.masks[i]
        mask[:] = False
        if seat is None or not self._live[i]:
            self.seats[i] = -1
            self.obs[i] = 0.0
            return
        self.seats[i] = seat
        self.obs[i] = self._observers[i].observation(state, seat)
        mask[state.legal_actions()] = True

    # -------------------------------------------------------------- step
    def step(self, actions: Sequence[int] | np.ndarray) -> Batch:
        """Apply ``actions[i]`` for the seat to act in every live game ``i`` (a finished
        game's action is ignored). Illegal actions are all checked before any is
        applied: with ``illegal_action="raise"`` an error names the game, seat, action
        and legal set and nothing changes; with ``"penalty"`` the seat is charged and a
        random legal action is played instead."""
        if isinstance(actions, str | bytes) or len(actions) != self.num_games:
            raise ValueError(f"step takes {self.num_games} actions, one per game, got "
                             f"{actions!r}")
        rewards, dones = self.step_games(range(self.num_games) if self._core is None
                                         else self._core.everyone, actions)
        return Batch(self.obs.copy(), self.masks.copy(), self.seats.copy(), rewards, dones,
                     dones & self.truncated)

    def step_games(self, games: Sequence[int] | np.ndarray, actions: Sequence[int] | np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``step`` for the games ``games`` only (``actions[k]`` for game ``games[k]``): the
        others wait. Returns those games' rewards ``(len(games), num_players)`` and done
        flags; ``obs``, ``masks`` and ``seats`` rows are updated in place, and
        ``truncated[i]`` says whether game ``i``'s episode that ended was cut at the hand
        cap. A self-play
        collector steps the games whose seat to act is played by one network this way."""
        if self._core is not None:
            if not self._core.started:
                raise RuntimeError("step() before reset()")
            return self._core.step(games, actions, self._draw, self.truncated)
        states = self._states
        if states[0] is None:
            raise RuntimeError("step() before reset()")
        if len(actions) != len(games):
            raise ValueError(f"{len(games)} games but {len(actions)} actions")
        live = self._live
        payout = self.payout
        chosen: list[int | None] = []
        penalties = []
        for k, i in enumerate(games):  # every action checked before any is applied
            if not live[i]:
                chosen.append(None)
                continue
            state = states[i]
            assert state is not None  # live: restarted
            seat = state.current_player
            act, penalty = payout.resolve(state.legal_actions(), actions[k],
                                          f"player_{seat} in game {i}", self.game.action_name,
                                          self._draw)
            if penalty:
                penalties.append((k, seat, penalty))
            chosen.append(act)
        rewards = np.zeros((len(games), self.num_players), dtype=np.float32)
        dones = np.zeros(len(games), dtype=bool)
        for k, seat, penalty in penalties:
            rewards[k, seat] += penalty
        for k, i in enumerate(games):
            move = chosen[k]
            if move is None:
                continue
            state = states[i]
            assert state is not None  # live: restarted
            player = state.current_player
            state.apply(move)
            assert player is not None  # it took a move: the game was not over
            self._observers[i].after_apply(state, player, move)
            if len(state.results) != self._hands[i]:
                terms, ended, truncated = payout.settle(state, self._hands[i])
                for term in terms:
                    rewards[k] += term
                self._hands[i] = len(state.results)
                if ended:
                    dones[k] = True
                    self.truncated[i] = truncated
                    if self.auto_reset:
                        self.restart(i, self._next_seed(i))
                        continue
                    live[i] = False  # waits for restart(i, ...)
            self._write(i)
        return rewards, dones

    def _draw(self, n: int) -> int:
        """A uniformly random index below ``n`` (the legal action replacing an illegal one)."""
        return int(self._rng.integers(n))


def mixed_rules(game: Game, rules: Any, counts: Sequence[int], observation: str) -> list[Any]:
    """``rules`` at each table size of ``counts`` (its ``num_players`` field), checked: a
    clear ``ValueError`` for rules without that field, a count they refuse, a repeated
    count, or an observation whose size depends on the count (one network reads every
    table, so its input must be one size)."""
    if isinstance(counts, str | bytes) or not counts:
        raise ValueError(f"player_counts must be table sizes like 2,3,4, got {counts!r}")
    if not hasattr(rules, "num_players"):
        raise ValueError(f"player_counts: the {game.name} rules have no num_players field, so "
                         "their table size cannot change")
    if len(set(counts)) != len(counts):
        raise ValueError(f"player_counts has a count twice: {tuple(counts)!r}")
    encoder = game.encoder(observation)
    size = encoder.size(game.num_players(rules))
    out = []
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            raise ValueError(f"player_counts must be ints, got {n!r}")
        try:
            out.append(game.get_rules(rules, num_players=int(n)))
        except ValueError as err:
            raise ValueError(f"player_counts: {n} players: {err}") from None
        if encoder.size(int(n)) != size:
            raise ValueError(
                f"player_counts: the {observation} observation of {game.name} has "
                f"{encoder.size(int(n))} numbers at {n} players but {size} at "
                f"{game.num_players(rules)}: one network cannot read every table size")
    return out


class _Rows(Sequence):
    """A composite's per-game sequence (``states``) read through its parts."""

    def __init__(self, owner: MixedBatchedGames, name: str) -> None:
        self._owner, self._name = owner, name

    def __len__(self) -> int:
        return self._owner.num_games

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        part, j = self._owner.where(int(i))
        return getattr(self._owner.parts[part], self._name)[j]


class MixedBatchedGames:
    """``num_games`` games at several table sizes: one ``BatchedGames`` per count of
    ``counts`` (a compiled core has one fixed size), its games a contiguous block of
    slots split as evenly as ``num_games`` allows, behind the trainers' ``BatchedGames``
    interface. ``num_players`` is the largest count: a row of rewards is padded with 0
    past its game's count; ``counts[i]`` is game ``i``'s own. Game ``i`` of block ``k``
    (starting at slot ``start``) deals its episodes from ``seed + i``, then ``+`` the
    block's size each episode. Used to train one network over every table size
    (``BatchedRunConfig.player_counts``)."""

    def __init__(self, game: str | Game, num_games: int, counts: Sequence[int],
                 preset: str | None = None, rules: Any = None,
                 observation: str = DEFAULT_OBSERVATION, **options: Any) -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        rule_changes = {k: options.pop(k) for k in list(options)
                        if k not in _OPTIONS}
        if "num_players" in rule_changes:
            raise ValueError("give the table sizes as counts, not as a num_players change")
        self.rules = self.game.make_rules(preset, rules, **rule_changes)
        per_count = mixed_rules(self.game, self.rules, counts, observation)
        if num_games < len(per_count):
            raise ValueError(f"{num_games} games cannot hold {len(per_count)} table sizes: "
                             "give at least one game per count")
        self.num_games = num_games
        sizes = [num_games // len(per_count) + (k < num_games % len(per_count))
                 for k in range(len(per_count))]
        self.parts = [BatchedGames(self.game, size, rules=r, observation=observation, **options)
                      for size, r in zip(sizes, per_count, strict=True)]
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.part_of = np.repeat(np.arange(len(sizes)), sizes)  # game -> its block
        self.local = np.arange(num_games) - self.starts[self.part_of]  # game -> its slot there
        self.counts = np.repeat([part.num_players for part in self.parts], sizes).astype(np.int64)
        first = self.parts[0]
        self.encoder, self.payout, self.auto_reset = first.encoder, first.payout, first.auto_reset
        self.num_players = int(self.counts.max())
        self.num_actions, self.obs_size = first.num_actions, first.obs_size
        self.obs = np.zeros((num_games, self.obs_size), dtype=np.float32)
        self.masks = np.zeros((num_games, self.num_actions), dtype=bool)
        self.seats = np.full(num_games, -1, dtype=np.int64)
        self.truncated = np.zeros(num_games, dtype=bool)
        self.episode_seeds = np.zeros(num_games, dtype=np.int64)
        self.states: Sequence[EngineState | None] = _Rows(self, "states")
        reasons = [part.python_reason for part in self.parts if part.python_reason]
        self.python_reason = reasons[0] if reasons else None

    def where(self, i: int) -> tuple[int, int]:
        """Game ``i``'s block and its slot there."""
        return int(self.part_of[i]), int(self.local[i])

    @property
    def live(self) -> list[bool]:
        return [flag for part in self.parts for flag in part.live]

    def _copy(self, k: int, local: np.ndarray | None = None) -> None:
        """Block ``k``'s rows (``local`` of them; None: all) into the composite's arrays."""
        part, start = self.parts[k], int(self.starts[k])
        rows = np.arange(part.num_games) if local is None else local
        at = start + rows
        self.obs[at] = part.obs[rows]
        self.masks[at] = part.masks[rows]
        self.seats[at] = part.seats[rows]
        self.truncated[at] = part.truncated[rows]
        self.episode_seeds[at] = part.episode_seeds[rows]

    def restart(self, i: int, seed: int, deal: Any = None) -> None:
        k, j = self.where(i)
        self.parts[k].restart(j, seed, deal)
        self._copy(k, np.array([j]))

    def reset(self, seed: int | None = None, deals: Sequence | None = None) -> Batch:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
        if deals is not None and (isinstance(deals, str | bytes) or len(deals) != self.num_games):
            raise ValueError(f"deals must be a list of {self.num_games} deals (None for a "
                             f"dealt one), got {deals!r}")
        for k, part in enumerate(self.parts):
            lo, hi = int(self.starts[k]), int(self.starts[k + 1])
            part.reset(seed + lo, None if deals is None else list(deals[lo:hi]))
            self._copy(k)
        return Batch(self.obs.copy(), self.masks.copy(), self.seats.copy(),
                     np.zeros((self.num_games, self.num_players), dtype=np.float32),
                     np.zeros(self.num_games, dtype=bool), np.zeros(self.num_games, dtype=bool))

    def step(self, actions: Sequence[int] | np.ndarray) -> Batch:
        if isinstance(actions, str | bytes) or len(actions) != self.num_games:
            raise ValueError(f"step takes {self.num_games} actions, one per game, got "
                             f"{actions!r}")
        rewards, dones = self.step_games(np.arange(self.num_games), actions)
        return Batch(self.obs.copy(), self.masks.copy(), self.seats.copy(), rewards, dones,
                     dones & self.truncated)

    def step_games(self, games: Sequence[int] | np.ndarray, actions: Sequence[int] | np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``BatchedGames.step_games``, each block stepping its own games (the blocks one
        after another: an illegal action stops the blocks after its own, not those before)."""
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(actions)
        if len(actions) != len(games):
            raise ValueError(f"{len(games)} games but {len(actions)} actions")
        rewards = np.zeros((len(games), self.num_players), dtype=np.float32)
        dones = np.zeros(len(games), dtype=bool)
        blocks = self.part_of[games]
        for k in np.unique(blocks).tolist():
            pos = np.flatnonzero(blocks == k)
            local = self.local[games[pos]]
            part = self.parts[k]
            r, d = part.step_games(local, actions[pos])
            rewards[pos, :part.num_players] = r
            dones[pos] = d
            self._copy(k, local)
        return rewards, dones


# BatchedGames' keywords that are options, not rule changes (MixedBatchedGames splits them)
_OPTIONS = frozenset({"episode", "score_scale", "relative_score", "win_reward", "illegal_action",
                      "illegal_penalty", "max_episode_hands", "auto_reset", "compiled",
                      "hand_reward"})


def make_games(game: str | Game, num_games: int, counts: Sequence[int] = (),
               **kwargs: Any) -> BatchedGames | MixedBatchedGames:
    """``BatchedGames``, or with ``counts`` a ``MixedBatchedGames`` over those table sizes."""
    if counts:
        return MixedBatchedGames(game, num_games, counts, **kwargs)
    return BatchedGames(game, num_games, **kwargs)
