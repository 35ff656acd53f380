"""cardrl.train.policy: per-action observation blocks scored straight onto their actions.

Only the ``features`` observation has such blocks; the information state has none, so
a policy over it is SB3's masked MLP alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_names, get_game
from cardrl.train.nets import TORCH_ACTIVATIONS, game_action_features
from cardrl.train.numpy_policy import ACTIVATIONS
from cardrl.train.policy import ActionFeatureHead, ActionFeaturePolicy, policy_weights
from tests.env_checks import INFOSTATE_ACTION_BLOCKS


def test_each_block_adds_its_weight_times_its_features_to_its_own_actions():
    # obs of 5; block 0: obs[1..2] -> actions 0..1; block 1: obs[0] -> action 2 and
    # block 2: the same obs[0] -> action 3 (one feature may serve two actions)
    head = ActionFeatureHead(hidden=3, obs_size=5, num_actions=4,
                             blocks=((1, 0, 2), (0, 2, 1), (0, 3, 1)))
    with torch.no_grad():
        head.raw_weight[:] = torch.tensor([2.0, -3.0, 0.5]) / head.GAIN
    hidden = torch.randn(2, 3)
    obs = torch.tensor([[1.0, 10.0, 20.0, 7.0, 9.0], [-1.0, 0.0, 1.0, 0.0, 0.0]])
    logits = head(torch.cat([hidden, obs], dim=1))
    plain = head.linear(hidden)
    added = (logits - plain).detach().numpy()
    assert added == pytest.approx(np.array([[20.0, 40.0, -3.0, 0.5], [0.0, 2.0, 3.0, -0.5]]))
    assert (obs.numpy() @ head.skip_matrix()) == pytest.approx(added)


def test_a_block_outside_the_observation_or_actions_is_refused_by_its_numbers():
    with pytest.raises(ValueError, match=r"\(3, 0, 4\)"):
        ActionFeatureHead(2, obs_size=5, num_actions=8, blocks=((3, 0, 4),))
    with pytest.raises(ValueError, match=r"\(0, 6, 4\)"):
        ActionFeatureHead(2, obs_size=5, num_actions=8, blocks=((0, 6, 4),))


# the card an action plays (None: not a card action), per game
CARD_OF = {
    "gin_rummy": lambda a: None if a < 2 else (a - 2) % 52,
    "sevens": lambda a: a >> 1,
    "spades": lambda a: None if a < 14 else a - 14,
}


@pytest.mark.parametrize("game", sorted(CARD_OF))
def test_declared_blocks_describe_the_actions_they_feed(game):
    """Over random play, a block's feature is nonzero only for an action the seat to act
    could take: a legal one, or one of a card it holds (that card's play may be illegal
    just now, e.g. it must follow suit). Blocks laid on the wrong actions would not be."""
    g = get_game(game)
    preset = g.presets[0]
    rules = g.get_rules(preset)
    blocks = game_action_features(game, preset, None, "features")
    assert blocks == g.encoder("features").action_features(g.num_players(rules))
    encode = g.encoder("features").encode
    rng = np.random.default_rng(0)
    checked = nonzero = 0
    for seed in range(6):
        state = g.new_state(rules, seed)
        while not state.is_over and checked < 600:
            seat, legal = state.current_player, state.legal_actions()
            view = state.view(seat)
            obs = encode(view)
            for offset, first, length in blocks:
                for a in first + np.flatnonzero(obs[offset:offset + length]):
                    assert a in legal or CARD_OF[game](int(a)) in view.hand, (offset, a)
                    nonzero += 1
            checked += 1
            state.apply(int(rng.choice(legal)))
    assert checked > 100 and nonzero > checked  # the blocks were there to check


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("kind", KINDS)
def test_which_encoders_declare_action_blocks(game, kind):
    """The features of every game but Blind Auction (whose features are its information
    state) hold per-action numbers inside the vector, and so do the information states of
    Sevens (each play's points), Spades (which card tops the trick, which is a master) and
    Gin Rummy (each discard's deadwood); Blind Auction's does not."""
    g = get_game(game)
    for preset in g.presets:
        rules = g.get_rules(preset)
        n = g.num_players(rules)
        blocks = game_action_features(game, preset, None, kind)
        assert bool(blocks) == (kind == "features" and game != "blind_auction"
                                or (game, kind) in INFOSTATE_ACTION_BLOCKS)
        size = g.encoder(kind).size(n)
        assert all(o >= 0 and o + length <= size and first + length <= g.num_actions
                   for o, first, length in blocks)
    assert game_action_features(game) == game_action_features(game, None, None, "infostate")


def test_the_policy_round_trips_through_save_and_load_with_its_head(tmp_path):
    from sb3_contrib import MaskablePPO

    from cardrl.envs.batched import BatchedGames
    from cardrl.train.opponents import OpponentPool
    from cardrl.train.selfplay import SelfPlayVecEnv

    env = SelfPlayVecEnv(BatchedGames("sevens", 2, preset="random", observation="features"),
                         OpponentPool.parse("random", "sevens"))
    blocks = game_action_features("sevens", "random", None, "features")
    model = MaskablePPO(ActionFeaturePolicy, env, n_steps=64, batch_size=64, device="cpu",
                        policy_kwargs={"net_arch": [8], "action_features": blocks})
    with torch.no_grad():
        model.policy.action_net.raw_weight[:] = torch.tensor([1.5, -0.5, -2.0])
    model.save(tmp_path / "m.zip")
    again = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert again.policy.action_features == blocks
    a, b = policy_weights(model.policy), policy_weights(again.policy)
    obs, mask = env.reset()[0], env.action_masks()[0]
    assert np.array_equal(a.logits(obs, mask), b.logits(obs, mask))
    assert a.skip is not None and np.count_nonzero(a.skip) == 3 * 104


def test_every_activation_computes_the_same_in_numpy_and_torch():
    """One list of names (train.numpy_policy.ACTIVATIONS) with its torch side: the opponent
    seats (numpy) play what the learner (torch) learned."""
    assert TORCH_ACTIVATIONS.keys() == ACTIVATIONS.keys()
    x = np.linspace(-3, 3, 61, dtype=np.float32)
    for name, numpy_fn in ACTIVATIONS.items():
        torch_out = TORCH_ACTIVATIONS[name]()(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(numpy_fn(x), torch_out, rtol=1e-6, atol=1e-7)
