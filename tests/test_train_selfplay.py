"""Batched self-play (train.selfplay): env i of ``SelfPlayVecEnv`` is the learner's seat of game
i. Every move of every game is followed in a PettingZoo AEC env of the same game and options,
reset with each episode's seed (``BatchedGames.episode_seeds``), which checks that the learner
gets exactly its seat's rewards, sees what the AEC env's ``last()`` shows its agent, sits where
it should (rotating, or fixed), and that every other seat is played by the opponent mix, one
forward pass per network per tick. The opponent mix parses and checks its input."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl import agents
from cardrl.envs.batched import BatchedGames
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_names, get_game
from cardrl.train.config import TrainConfig
from cardrl.train.numpy_policy import NumpyPolicy
from cardrl.train.opponents import OpponentPool, parse_mix, rule_bots
from cardrl.train.selfplay import SelfPlayVecEnv, TorchTwin

GAMES = game_names()
CAP = {"max_hands": 2}  # short games: several hands and the final bonus are still exercised


def random_policy(games: BatchedGames, seed: int, hidden: int = 8) -> NumpyPolicy:
    """A NumpyPolicy of the right shapes with random weights (an opponent network)."""
    rng = np.random.default_rng(seed)
    return NumpyPolicy([(rng.normal(size=(hidden, games.obs_size)), rng.normal(size=hidden)),
                        (rng.normal(size=(games.num_actions, hidden)),
                         rng.normal(size=games.num_actions))], "tanh")


def section5_total(state, seat: int, scale: float, relative: bool, cut: bool = False) -> float:
    """docs/rules.md section 5 for ``seat`` over a finished episode, from the engine's own hand
    results: each hand's points / scale (relative: less the others' mean), then +1 shared by
    the winners and -1 shared by the others, nothing on a draw (a game stopped after a hand
    is won by whoever leads on total score); a game cut at the hand cap gets no bonus."""
    total = 0.0
    for result in state.results:
        points = list(result.points)
        mine = points[seat]
        if relative:
            mine -= (sum(points) - mine) / (len(points) - 1)
        total += mine / scale
    if state.is_over:
        winners = list(state.winners)
    elif cut:
        return total
    else:
        totals = list(state.results[-1].totals)
        winners = [s for s, t in enumerate(totals) if t == max(totals)]
    n = len(state.scores)
    if len(winners) == n:
        return total
    return total + (1.0 / len(winners) if seat in winners else -1.0 / (n - len(winners)))


class Referee:
    """Follows every move of ``env``'s games in AEC envs (one per game, the same options,
    each episode reset with its seed) and checks, move by move, who made it:

    * the moves SB3 asked for (the first ``step_games`` after ``step_async``) are made by
      each game's learner seat (``env.learner``); every other move by another seat;
    * a move of a rule bot is the one its ``act`` returned, at the seat its view shows,
      and one bot plays one seat for a whole episode; a network's moves are those its
      ``act_batch`` returned, one call per ``step_games`` call;

    and keeps, per game, what the learner's seat earned in each finished episode, as the
    AEC env pays ``rewards[player_<seat>]`` on every step and as section 5 of docs/rules.md
    computes it from the engine's results (the two must agree)."""

    def __init__(self, env: SelfPlayVecEnv, preset: str | None, options: dict) -> None:
        self.env = env
        games = env.games
        self.game = games.game
        n = games.num_games
        self.aecs = [self.game.env(preset=preset, **options) for _ in range(n)]
        self.scale = self.game.score_scale(games.rules)
        self.relative = bool(options.get("relative_score", True))  # the envs' default
        self.learner_turn = False
        self.in_reset = False
        self.episode = [0] * n  # episodes started per game
        self.moves = [0] * n  # moves of the current episode
        self.learner_moved = [False] * n
        self.total = [0.0] * n  # the learner seat's rewards over the current episode
        self.since = [0.0] * n  # ... since its last move (what PettingZoo's last() reports)
        self.ended_since = [0.0] * n  # ``since`` when its last episode ended
        self.expected: list[list[float]] = [[] for _ in range(n)]  # episodes it moved in
        self.learners: list[list[int]] = [[] for _ in range(n)]  # learner seat per episode
        self.skipped = self.skipped_at_reset = 0
        self.paid_on_others = 0  # steps of another seat that paid the learner something
        self.opponent_moves = 0
        self.bot_calls: list[tuple] = []  # (bot id, spec, seat, action) since the last step
        self.policy_calls: list[dict] = []  # act_batch calls: policy, actions, waiting, used
        # (game, episode, seat) -> (id of the bot or network that played it, spec or "net")
        self.seat_players: dict[tuple[int, int, int], tuple] = {}
        self.bot_moves = 0  # opponents' moves made by rule bots
        self.step_batches: list[int] = []  # sizes of the opponents' step_games calls
        self.learner_calls = 0
        self._wrap()

    # ------------------------------------------------------------- hooks
    def _wrap(self) -> None:
        env, games = self.env, self.env.games
        reset, step_games, step_async = games.reset, games.step_games, env.step_async
        env_reset = env.reset

        def games_reset(*args, **kwargs):
            batch = reset(*args, **kwargs)
            for i in range(games.num_games):
                self._start(i)
            return batch

        def games_step(idx, actions):
            idx = list(idx)
            seats = [int(games.seats[i]) for i in idx]
            learners = [int(env.learner[i]) for i in idx]
            self._check_movers(idx, seats, learners, actions)
            out = step_games(idx, actions)
            for k, i in enumerate(idx):
                self._follow(i, seats[k], learners[k], int(actions[k]))
            return out

        def async_(actions):
            self.learner_turn = True
            return step_async(actions)

        def vec_reset():
            self.in_reset = True
            try:
                return env_reset()
            finally:
                self.in_reset = False

        games.reset, games.step_games = games_reset, games_step
        env.step_async, env.reset = async_, vec_reset
        make_bot = env.pool.make_bot

        def recording_bot(spec):
            bot = make_bot(spec)
            act = bot.act

            def recorded(view, legal):
                action = act(view, legal)
                self.bot_calls.append((id(bot), spec, view.seat, int(action)))
                return action

            bot.act = recorded
            return bot

        env.pool.make_bot = recording_bot

    def record_policies(self, monkeypatch) -> None:
        """Log every opponent forward pass (an MLP's ``TorchTwin.act_batch``): the policy,
        the batch size, its actions and how many games waited for an opponent's move at
        that moment."""
        original = TorchTwin.act_batch
        env = self.env

        def act_batch(twin, obs, masks, rng, deterministic=False):
            actions = original(twin, obs, masks, rng, deterministic)
            waiting = int(np.sum(env.games.seats != env.learner))
            self.policy_calls.append({"policy": twin.source,
                                      "actions": np.asarray(actions).copy(),
                                      "waiting": waiting, "used": False})
            return actions

        monkeypatch.setattr(TorchTwin, "act_batch", act_batch)

    # ---------------------------------------------------------- checking
    def _check_movers(self, idx, seats, learners, actions) -> None:
        bot_calls, self.bot_calls = self.bot_calls, []
        if self.learner_turn:  # SB3's actions: every game's learner seat moves
            self.learner_turn = False
            self.learner_calls += 1
            assert idx == list(range(self.env.num_envs))
            assert seats == learners, (seats, learners)
            assert not bot_calls
            return
        assert all(s != le for s, le in zip(seats, learners, strict=True)), (seats, learners)
        self.opponent_moves += len(idx)
        self.step_batches.append(len(idx))
        if bot_calls:  # the rule bots' group: one act per game, in order
            assert len(bot_calls) == len(idx)
            self.bot_moves += len(idx)
            for k, i in enumerate(idx):
                bot, spec, seat, action = bot_calls[k]
                assert seat == seats[k] and action == int(actions[k])
                key = (i, self.episode[i], seat)
                assert self.seat_players.setdefault(key, (bot, spec)) == (bot, spec)
        elif self.policy_calls and not self.policy_calls[-1]["used"]:
            call = self.policy_calls[-1]
            call["used"] = True
            assert len(call["actions"]) == len(idx)  # one forward pass for this whole group
            assert np.array_equal(call["actions"], np.asarray(actions))
            who = (id(call["policy"]), "net")
            for i, seat in zip(idx, seats, strict=True):
                assert self.seat_players.setdefault((i, self.episode[i], seat), who) == who
        assert all(c["used"] for c in self.policy_calls)  # no act_batch left unplayed

    def _start(self, i: int) -> None:
        self.aecs[i].reset(seed=int(self.env.games.episode_seeds[i]))
        self.episode[i] += 1
        self.moves[i] = 0
        self.learner_moved[i] = False
        self.total[i] = self.since[i] = 0.0

    def _follow(self, i: int, seat: int, learner: int, action: int) -> None:
        aec = self.aecs[i]
        assert aec.agent_selection == f"player_{seat}"
        if self.moves[i] == 0:
            self.learners[i].append(learner)
        self.moves[i] += 1
        if seat == learner:
            self.learner_moved[i] = True
            self.since[i] = 0.0
        aec.step(action)
        reward = float(aec.rewards[f"player_{learner}"])
        self.total[i] += reward
        self.since[i] += reward
        if seat != learner and reward != 0.0:
            self.paid_on_others += 1
        cut = all(aec.truncations.values())
        if all(aec.terminations.values()) or cut:
            independent = section5_total(aec.state_obj, learner, self.scale, self.relative, cut)
            assert self.total[i] == pytest.approx(independent, abs=1e-6)
            if self.learner_moved[i]:
                self.expected[i].append(self.total[i])
                self.ended_since[i] = self.since[i]
            else:
                self.skipped += 1
                self.skipped_at_reset += self.in_reset
            self._start(i)

    def check_turn(self, obs: np.ndarray, rewards: np.ndarray | None = None,
                   dones: np.ndarray | None = None) -> None:
        """Each env's observation and mask are the AEC env's ``last()`` for the learner's
        agent, which is the one to act; its reward is what ``last()`` reports (the learner's
        rewards since its last move) or, where its episode ended, those of the end."""
        env = self.env
        masks = env.action_masks()
        for i, aec in enumerate(self.aecs):
            agent = f"player_{int(env.learner[i])}"
            assert aec.agent_selection == agent
            seen, reward, term, trunc, _ = aec.last()
            assert not term and not trunc
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(masks[i], seen["action_mask"].astype(bool))
            if rewards is not None:
                want = self.ended_since[i] if dones[i] else reward
                assert rewards[i] == pytest.approx(want, abs=1e-6), (i, bool(dones[i]))


def selfplay(game: str, mix: str, n: int = 4, seed: int = 0, seat: int | None = None,
             preset: str | None = None, **options) -> tuple[SelfPlayVecEnv, Referee]:
    games = BatchedGames(game, n, preset=preset, **options)
    env = SelfPlayVecEnv(games, OpponentPool.parse(mix, game), seed=seed, seat=seat)
    return env, Referee(env, preset, options)


def play(env: SelfPlayVecEnv, referee: Referee, episodes: int, seed: int = 0,
         max_steps: int = 3000) -> list[list[float]]:
    """Random legal learner moves until every env finished ``episodes`` episodes; each
    env's reward sums between dones, checked against the referee at every step."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    referee.check_turn(obs)
    n = env.num_envs
    got: list[list[float]] = [[] for _ in range(n)]
    running = np.zeros(n)
    for _ in range(max_steps):
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        assert obs.shape == (n, env.observation_space.shape[0]) and len(infos) == n
        referee.check_turn(obs, rewards, dones)
        running += rewards
        for i in np.flatnonzero(dones):
            got[i].append(float(running[i]))
            running[i] = 0.0
        if min(map(len, got)) >= episodes:
            return got
    raise AssertionError(f"some env did not finish {episodes} episodes: {list(map(len, got))}")


# the reward variants of test 1: episode, relative score, opponent mix
VARIANTS = [("game", False, "rules@1"), ("hand", False, "self@1,random@1,rules@1"),
            ("game", True, "self@1,snapshot@1,random@1"), ("hand", True, "rules@1")]


@pytest.mark.parametrize("episode, relative, mix", VARIANTS,
                         ids=[f"{e}-{'relative' if r else 'plain'}-{m}" for e, r, m in VARIANTS])
@pytest.mark.parametrize("game", GAMES)
def test_learner_gets_exactly_its_seats_rewards_over_each_episode(game, episode, relative, mix):
    """The sum of an env's rewards between dones is what the learner's seat earned in that
    episode: every step's ``rewards[player_<seat>]`` of the AEC env replaying the same moves
    on the episode's seed, also those paid on other seats' moves (section 5 of docs/rules.md
    from the engine's results agrees)."""
    options = {"episode": episode, "relative_score": relative}
    env, referee = selfplay(game, mix, seed=11, **CAP, **options)
    if "self" in mix:
        env.set_policy(random_policy(env.games, 1))
    if "snapshot" in mix:
        env.add_snapshot(random_policy(env.games, 2))
    got = play(env, referee, episodes=3, seed=5)
    for i, totals in enumerate(got):
        assert totals == pytest.approx(referee.expected[i][:len(totals)], abs=1e-6), i
    assert any(t != 0 for totals in got for t in totals)
    # the trap is real: some reward reached the learner on another seat's move
    assert referee.paid_on_others > 0
    assert referee.learner_calls > 0 and referee.opponent_moves > 0


@pytest.mark.parametrize("game", GAMES)
def test_learner_seat_rotates_and_every_other_seat_is_played_by_the_mix(game):
    """The learner's seat moves on by one each episode; a rule bot of the mix plays every
    other seat (its ``act`` is never asked for the learner's seat), one bot per seat for
    the whole episode, drawn by the mix's weights."""
    strong = agents.strongest(game)[0]
    env, referee = selfplay(game, f"{strong}@1,random@3", n=6, seed=3, **CAP)
    play(env, referee, episodes=4, seed=1)
    p = env.games.num_players
    for i, seats in enumerate(referee.learners):
        assert len(seats) >= 4
        assert all((b - a) % p == 1 for a, b in zip(seats, seats[1:], strict=False)), (i, seats)
    assert {s for seats in referee.learners for s in seats} == set(range(p))
    specs = [spec for _, spec in referee.seat_players.values()]
    assert set(specs) == {strong, "random"}
    assert 0.55 < specs.count("random") / len(specs) < 0.95  # weight 3 of 4
    assert referee.bot_moves == referee.opponent_moves == sum(referee.step_batches) > 0
    owners: dict[int, tuple[int, int]] = {}
    for (i, episode, seat), (bot, _) in referee.seat_players.items():
        assert seat != referee.learners[i][episode - 1]
        assert owners.setdefault(bot, (i, seat)) == (i, seat)  # a bot per game and seat


@pytest.mark.parametrize("game", GAMES)
def test_a_fixed_seat_keeps_the_learner_there(game):
    p = get_game(game).num_players(get_game(game).get_rules(get_game(game).presets[0]))
    env, referee = selfplay(game, "random@1", n=3, seat=p - 1, **CAP)
    play(env, referee, episodes=3)
    assert {s for seats in referee.learners for s in seats} == {p - 1}
    assert all(len(seats) >= 3 for seats in referee.learners)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", GAMES)
def test_observation_and_mask_are_the_aec_envs_last_for_the_learner(game, kind):
    """``Referee.check_turn`` compares every env after every reset and step; here over both
    observation kinds, with the current policy in the other seats."""
    env, referee = selfplay(game, "self@1", n=3, seed=7, observation=kind, **CAP)
    env.set_policy(random_policy(env.games, 3))
    obs = env.reset()
    assert obs.dtype == np.float32 and env.observation_space.contains(obs[0])
    assert env.action_space.n == env.games.num_actions
    assert np.array_equal(np.stack(env.env_method("action_masks")), env.action_masks())
    assert np.array_equal(np.stack(env.env_method("action_masks", indices=[2])),
                          env.action_masks()[[2]])
    play(env, referee, episodes=2, seed=2)


@pytest.mark.parametrize("game", GAMES)
def test_one_forward_pass_per_network_per_tick(game, monkeypatch):
    """With ``self@1``, every ``act_batch`` call decides every game waiting for an opponent's
    move at that moment (never one game at a time), and the batch sizes add up to the
    opponents' moves."""
    env, referee = selfplay(game, "self@1", n=8, seed=4, **CAP)
    policy = random_policy(env.games, 4)
    env.set_policy(policy)
    referee.record_policies(monkeypatch)
    rng = np.random.default_rng(0)
    env.reset()
    for _ in range(60):
        calls_before, moves_before = len(referee.policy_calls), referee.opponent_moves
        batches_before = len(referee.step_batches)
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        env.step_wait()
        calls = referee.policy_calls[calls_before:]
        assert all(c["policy"] is policy for c in calls)
        assert [len(c["actions"]) for c in calls] == [c["waiting"] for c in calls]
        assert sum(len(c["actions"]) for c in calls) == referee.opponent_moves - moves_before
        assert len(calls) == len(referee.step_batches) - batches_before  # a pass per tick
    assert referee.opponent_moves > 0 and len(referee.policy_calls) < referee.opponent_moves


def test_two_networks_take_one_pass_each_and_snapshots_are_frozen_copies(monkeypatch):
    """``self`` seats play the pushed policy, ``snapshot`` seats the snapshots (the current
    policy while there is none; only the newest ``max_snapshots`` are kept)."""
    games = BatchedGames("spades", 8, **CAP)
    pool = OpponentPool(parse_mix("snapshot@1", "spades"), max_snapshots=2)
    env = SelfPlayVecEnv(games, pool, seed=1)
    referee = Referee(env, None, CAP)
    referee.record_policies(monkeypatch)
    current = random_policy(games, 0)
    env.set_policy(current)
    play(env, referee, episodes=1)
    assert {id(c["policy"]) for c in referee.policy_calls} == {id(current)}
    snaps = [random_policy(games, 10 + k) for k in range(3)]
    for s in snaps:
        env.add_snapshot(s)
    referee.policy_calls.clear()
    play(env, referee, episodes=2)
    assert {id(c["policy"]) for c in referee.policy_calls} == {id(snaps[1]), id(snaps[2])}

    env, referee = selfplay("spades", "self@1,snapshot@1", n=8, seed=2, **CAP)
    referee.record_policies(monkeypatch)
    env.set_policy(current)
    env.add_snapshot(snaps[0])
    play(env, referee, episodes=2)
    used = {id(c["policy"]) for c in referee.policy_calls}
    assert used == {id(current), id(snaps[0])}
    assert sum(len(c["actions"]) for c in referee.policy_calls) == referee.opponent_moves


def test_greedy_seats_play_a_snapshots_argmax_and_snapshot_seats_draw(monkeypatch):
    """``greedy`` seats play a snapshot (the current policy while there is none) by its masked
    argmax, every move the one the logits rank first; ``snapshot`` seats of the same pool
    draw from the softmax, so they leave the argmax often (random weights: flat enough)."""
    env, referee = selfplay("blind_auction", "greedy@1,snapshot@1", n=8, seed=3)
    calls: list[tuple] = []  # (deterministic, every action the argmax, the policy)
    original = TorchTwin.act_batch

    def act_batch(twin, obs, masks, rng, deterministic=False):
        actions = original(twin, obs, masks, rng, deterministic)
        best = twin.logits(obs, masks).argmax(axis=1)
        calls.append((deterministic, bool(np.all(actions == best)), twin.source))
        return actions

    monkeypatch.setattr(TorchTwin, "act_batch", act_batch)
    current = random_policy(env.games, 0, hidden=4)
    snaps = [random_policy(env.games, 20 + k, hidden=4) for k in range(2)]
    env.set_policy(current)
    play(env, referee, episodes=1)
    assert {id(c[2]) for c in calls} == {id(current)} and any(c[0] for c in calls)
    for s in snaps:
        env.add_snapshot(s)
    calls.clear()
    play(env, referee, episodes=3)
    greedy = [c for c in calls if c[0]]
    assert greedy and all(c[1] for c in greedy)
    assert {id(c[2]) for c in greedy} == {id(s) for s in snaps}
    assert not all(c[1] for c in calls if not c[0])


def test_a_hand_that_ends_before_the_learners_first_move_pays_the_learner_nothing():
    """Gin with hand episodes: the player before the learner may knock on its opening turn.
    The learner had no decision in that hand: it gets no done and none of that hand's
    rewards, whether the hand ended while the env was reset or after one of its steps, and
    it is only ever handed a live decision. (Seed 0, 64 games, learner at seat 0: game 35's
    first deal is such a hand.)"""
    env, referee = selfplay("gin_rummy", "gin_rummy/expert@1", n=64, seed=0, seat=0,
                            episode="hand")
    got = play(env, referee, episodes=2, seed=3)
    for i, totals in enumerate(got):
        assert totals == pytest.approx(referee.expected[i][:len(totals)], abs=1e-6), i
    assert referee.skipped_at_reset > 0 and referee.skipped > referee.skipped_at_reset
    assert env.skipped == referee.skipped


def test_an_episode_cut_at_the_hand_cap_is_truncated_for_sb3():
    """Killer Spades cut after one hand (``max_episode_hands=1``) never reaches its target:
    every done is a cut, and SB3 is told so (``TimeLimit.truncated``, with the terminal
    observation to bootstrap from); a game played to its end (``max_hands=1``) is not."""
    for options, cut in (({"max_episode_hands": 1}, True), ({"max_hands": 1}, False)):
        env, _ = selfplay("spades", "random@1", n=2, seed=1, **options)
        rng = np.random.default_rng(0)
        env.reset()
        seen = 0
        for _ in range(200):
            env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
            _, _, dones, infos = env.step_wait()
            for i in np.flatnonzero(dones):
                assert infos[i]["TimeLimit.truncated"] is cut
                assert infos[i]["terminal_observation"].shape == env.observation_space.shape
                seen += 1
        assert seen >= 2


def test_same_seed_same_transcript():
    def transcript(seed: int) -> list:
        env, _ = selfplay("spades", "rules@1,self@1", n=3, seed=seed, **CAP)
        env.set_policy(random_policy(env.games, 0))
        rng = np.random.default_rng(9)
        out = [env.reset()]
        for _ in range(40):
            env.step_async(np.array([rng.choice(np.flatnonzero(m))
                                     for m in env.action_masks()]))
            obs, rewards, dones, _ = env.step_wait()
            out += [obs, rewards, dones, env.learner.copy()]
        return out

    a, b, c = transcript(5), transcript(5), transcript(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_sb3_finds_the_render_mode_it_asks_every_vec_env_for():
    """SB3's ``VecEnv.__init__`` reads ``render_mode`` through ``get_attr``; the env has one
    (None) so that SB3 warns of nothing."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = SelfPlayVecEnv(BatchedGames("sevens", 2), OpponentPool.parse("self", "sevens"))
    assert env.render_mode is None and env.get_attr("render_mode") == [None, None]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("seat", [4, -1, True, "1"])
def test_a_seat_out_of_range_is_refused_naming_it(seat):
    with pytest.raises(ValueError, match=f"seat must be None or in 0..3, got {seat!r}"):
        SelfPlayVecEnv(BatchedGames("spades", 2), OpponentPool.parse("self", "spades"),
                       seat=seat)


def test_a_mix_naming_another_games_bot_is_refused_naming_it():
    with pytest.raises(ValueError, match="opponent 'gin_rummy/expert' plays gin_rummy, "
                                         "not spades"):
        OpponentPool.parse("self@1,gin_rummy/expert@1", "spades")
    with pytest.raises(ValueError, match="plays gin_rummy, not spades"):
        TrainConfig(game="spades", opponents="gin_rummy/expert@1").validate()
    # a pool made for another game, handed to the env: refused before a bot sees a view it
    # cannot read (not an AttributeError from inside the bot)
    pool = OpponentPool.parse("gin_rummy/expert@1", "gin_rummy")
    with pytest.raises(ValueError, match="gin_rummy/expert"):
        env = SelfPlayVecEnv(BatchedGames("spades", 2), pool)
        env.reset()


@pytest.mark.parametrize("field, value", [("n_games", 0), ("n_games", -3), ("n_games", True),
                                          ("n_steps", 0)])
def test_no_games_or_steps_is_refused_naming_the_value(field, value):
    with pytest.raises(ValueError, match=f"{field} must be a positive int, got {value!r}"):
        TrainConfig(**{field: value}).validate()
    with pytest.raises(ValueError, match="num_games must be a positive int, got 0"):
        BatchedGames("spades", 0)


def test_score_scale_zero_trains_on_the_win_alone():
    """``score_scale=0`` reaches the games: a finished game pays its winner ``win_reward``
    and the others ``-win_reward``, and a hand's points pay nothing."""
    cfg = TrainConfig(game="blind_auction", score_scale=0.0, win_reward=1.0)
    cfg.validate()
    games = BatchedGames(cfg.game, 8, **cfg.env_options())
    games.reset(seed=3)
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 8:
        batch = games.step([int(rng.choice(np.flatnonzero(m))) for m in games.masks])
        for rewards, done in zip(batch.rewards, batch.dones, strict=True):
            if done:
                finished += 1
                assert sorted(rewards.tolist()) in ([-1.0, 1.0], [0.0, 0.0])
            else:
                assert not rewards.any()


def test_an_unknown_observation_kind_is_refused_naming_it():
    message = r"observation must be one of \['infostate', 'features'\], got 'pixels'"
    with pytest.raises(ValueError, match=message):
        TrainConfig(game="sevens", observation="pixels").validate()
    with pytest.raises(ValueError, match=message):
        BatchedGames("sevens", 2, observation="pixels")


def test_mix_parsing():
    mix = parse_mix("self@2,spades/expert:nil=set-safe,prefer=avoid-over@1,snapshot@1", "spades")
    assert [e.what for e in mix] == ["self", "spades/expert:nil=set-safe,prefer=avoid-over",
                                     "snapshot"]
    assert [e.weight for e in mix] == pytest.approx([0.5, 0.25, 0.25])
    rules = parse_mix("rules@1", "spades")
    assert [e.what for e in rules] == list(agents.strongest("spades"))
    assert sum(e.weight for e in rules) == pytest.approx(1.0)
    assert OpponentPool.parse("rules@1", "spades").has_policies is False
    assert OpponentPool.parse("rules@1,snapshot@1", "spades").has_policies is True


@pytest.mark.parametrize("text, message", [
    ("nobody/bot@1", "bad opponent 'nobody/bot'"),
    ("self@zero", "bad weight 'zero'"),
    ("self@-1", "must be positive"),
    ("", "an opponent mix"),
])
def test_bad_mix_is_refused_naming_the_entry(text, message):
    with pytest.raises(ValueError, match=message):
        parse_mix(text, "spades")


def test_bot_of_another_game_is_refused():
    other = [g for g in GAMES if g != "spades" and rule_bots(g)]
    with pytest.raises(ValueError, match=f"plays {other[0]}"):
        parse_mix(f"{rule_bots(other[0])[0]}@1", "spades")


def test_numpy_policy_never_picks_a_masked_action():
    rng = np.random.default_rng(2)
    w = rng.normal(size=(10, 5)).astype(np.float32)
    policy = NumpyPolicy([(w, np.zeros(10))], "relu")
    for _ in range(200):
        mask = rng.random(10) < 0.3
        mask[rng.integers(10)] = True
        obs = rng.normal(size=5)
        assert mask[policy.act(obs, mask, rng, deterministic=False)]
        best = policy.act(obs, mask)
        assert mask[best]
        assert policy.logits(obs, mask)[best] == pytest.approx(max((obs @ w.T)[mask]), rel=1e-5)
    masks = rng.random((300, 10)) < 0.3
    masks[np.arange(300), rng.integers(10, size=300)] = True
    obs = rng.normal(size=(300, 5))
    sampled = policy.act_batch(obs, masks, rng)
    assert masks[np.arange(300), sampled].all()
    greedy = policy.act_batch(obs, masks, rng, deterministic=True)
    assert list(greedy) == [policy.act(o, m) for o, m in zip(obs, masks, strict=True)]


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_torch_twin_plays_the_numpy_policy(activation):
    """The twin that plays an MLP's seats: the same logits and argmax as the numpy policy
    (the skip path too), and draws that follow its masked softmax, never a masked action."""
    rng = np.random.default_rng(3)
    layers = [(rng.normal(size=(6, 5)), rng.normal(size=6)), (rng.normal(size=(4, 6)),
                                                             rng.normal(size=4))]
    policy = NumpyPolicy(layers, activation, skip=rng.normal(size=(5, 4)))
    twin = TorchTwin(policy)
    masks = rng.random((400, 4)) < 0.6
    masks[np.arange(400), rng.integers(4, size=400)] = True
    obs = rng.normal(size=(400, 5)).astype(np.float32)
    np.testing.assert_allclose(twin.logits(obs, masks), policy.logits(obs, masks), rtol=1e-4,
                               atol=1e-4)
    assert list(twin.act_batch(obs, masks, rng, deterministic=True)) == \
        list(policy.act_batch(obs, masks, rng, deterministic=True))
    one = np.repeat(obs[:1], 20000, axis=0)
    mask = np.repeat(np.array([[True, False, True, True]]), 20000, axis=0)
    drawn = twin.act_batch(one, mask, rng)
    z = policy.logits(obs[0], mask[0])
    p = np.exp(z - z.max())
    p /= p.sum()
    assert not (drawn == 1).any()
    np.testing.assert_allclose(np.bincount(drawn, minlength=4) / 20000, p, atol=0.015)


def test_a_policy_no_longer_used_takes_its_twin_with_it():
    """Each rollout pushes a new policy: the cached twins must not keep the old ones."""
    import gc
    import weakref

    from cardrl.train import selfplay as module

    games = BatchedGames("blind_auction", 2)
    policy = random_policy(games, 0)
    twin = module._runner(policy)
    assert module._runner(policy) is twin and twin.source is policy
    alive = weakref.ref(policy)
    del policy
    gc.collect()
    assert alive() is None and twin.source is None
    assert all(t is not twin for t in module._TWINS.values())
