"""The card-structured network (``cardrl.train.cardnet``) and the encoders' card tables it reads.

The tables must say the truth about the vector (a legal card action's card is in the own
hand, read in the table's first column), and the network must score a card action from
that card's own embedding: swapping two cards' inputs (and their identity vectors) swaps
their actions' scores and nothing else about them.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl.envs.games import game_names, get_game
from cardrl.train.cardnet import CardActor, CardNet, card_table
from tests.env_checks import decision_points

GAMES = game_names()


def views(game: str, count: int, seed: int = 0):
    g = get_game(game)
    enc = g.encoder("infostate")
    points = decision_points(game, count, seed=seed, max_hands=3)
    obs = np.stack([enc.encode(v) for v, _ in points]).astype(np.float32)
    masks = np.zeros((len(points), g.num_actions), np.float32)
    for i, (_, legal) in enumerate(points):
        masks[i, legal] = 1
    return obs, masks


@pytest.mark.parametrize("game", GAMES)
def test_a_legal_card_action_names_a_card_of_the_own_hand(game):
    table = card_table(game)
    obs, masks = views(game, 300)
    assert table.index.max() < obs.shape[1] and (table.index[:, 0] >= 0).all()
    for row in table.index:  # no feature read twice for one card
        row = row[row >= 0]
        assert len(set(row.tolist())) == len(row)
    card_actions = np.flatnonzero(table.action_card >= 0)
    assert len(card_actions) > 0
    checked = 0
    for o, m in zip(obs, masks, strict=True):
        for a in card_actions[m[card_actions] > 0]:
            assert o[table.index[table.action_card[a], 0]] == 1, (game, int(a))
            checked += 1
    assert checked > 100
    # the scalar inputs are exactly the rest of the vector
    scalars = table.scalar_index(obs.shape[1])
    assert len(scalars) + len(np.unique(table.index[table.index >= 0])) == obs.shape[1]


@pytest.mark.parametrize("game", GAMES)
def test_a_card_action_is_scored_from_its_own_card(game):
    table = card_table(game)
    obs, _ = views(game, 20, seed=3)
    torch.manual_seed(0)
    net = CardNet(table, obs.shape[1], get_game(game).num_actions, embed=8, hidden=(16,))
    with torch.no_grad():
        for m in (net.other, net.query):  # the heads start near 0: make them matter
            m.weight.normal_()
    # two cards that actions of kind 0 are about, whose inputs are theirs alone where they
    # differ (Sevens' cards of one rank share that rank's values, the same for both)
    kind0 = np.flatnonzero(table.action_kind == 0)
    values, counts = np.unique(table.index[table.index >= 0], return_counts=True)
    shared = set(values[counts > 1].tolist())

    def own(c: int, d: int) -> bool:
        return all(x == y or (x not in shared and y not in shared)
                   for x, y in zip(table.index[c].tolist(), table.index[d].tolist(),
                                   strict=True))

    a_i, a_j = next((a, b) for a in kind0 for b in kind0[::-1]
                    if table.action_card[a] != table.action_card[b]
                    and own(int(table.action_card[a]), int(table.action_card[b])))
    i, j = int(table.action_card[a_i]), int(table.action_card[a_j])
    swapped = obs.copy()
    swapped[:, table.index[i]], swapped[:, table.index[j]] = obs[:, table.index[j]], \
        obs[:, table.index[i]]
    ident = net.card_id.detach().clone()
    with torch.no_grad():
        before = net(torch.from_numpy(obs))[0].numpy()
        net.card_id[i], net.card_id[j] = ident[j], ident[i]
        net.other.weight[[a_i, a_j]] = net.other.weight[[a_j, a_i]].clone()
        net.other.bias[[a_i, a_j]] = net.other.bias[[a_j, a_i]].clone()
        after = net(torch.from_numpy(swapped))[0].numpy()
    assert np.allclose(before[:, a_i], after[:, a_j], atol=1e-4)
    assert np.allclose(before[:, a_j], after[:, a_i], atol=1e-4)
    assert not np.allclose(before[:, a_i], before[:, a_j])  # the cards do score apart


@pytest.mark.parametrize("game", GAMES)
def test_the_frozen_actor_plays_legal_moves_and_survives_save_and_load(game, tmp_path):
    table = card_table(game)
    obs, masks = views(game, 200, seed=5)
    torch.manual_seed(1)
    net = CardNet(table, obs.shape[1], get_game(game).num_actions, embed=8, hidden=(16,))
    actor = CardActor(net)
    rng = np.random.default_rng(0)
    for deterministic in (True, False):
        acts = actor.act_batch(obs, masks, rng, deterministic=deterministic)
        assert (masks[np.arange(len(acts)), acts] == 1).all()
    actor.save(tmp_path / "a.pt")
    again = CardActor.load(tmp_path / "a.pt", table)
    assert np.array_equal(actor.logits(obs, masks), again.logits(obs, masks))
    assert actor.act(obs[0], masks[0]) == int(np.argmax(actor.logits(obs[0], masks[0])))


def test_a_game_without_a_card_table_is_refused_by_name():
    from cardrl.train.config import TrainConfig
    cfg = TrainConfig(game="gin_rummy", observation="features", policy="card")
    with pytest.raises(ValueError, match="no card table"):
        cfg.validate()
    with pytest.raises(ValueError, match="policy must be one of"):
        TrainConfig(game="spades", policy="transformer").validate()
