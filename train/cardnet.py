"""A card-structured network: every card read through one shared embedding.

An MLP over the information state sees "the 7 of hearts is in my hand" and "the
8 of hearts is in my hand" as unrelated inputs, and must learn what each card
is worth 52 times over; from scratch it learned nothing in Gin Rummy or Sevens
(docs/results.md). Here the encoder's card table (``cardrl.envs.encoding.CardTable``)
gathers, for each card, its planes (in the hand, played by each seat, in the
pile, ...): one shared per-card MLP, with a learned identity vector per card
and a context vector from the scalar blocks (scores, the running total, the
phase), embeds every card; mean and max pooling over the cards with the scalars
feed the trunk. An action about a card (play it, discard it, knock with it)
is scored from that card's embedding: ``<query_kind(trunk), embedding(card)>``
plus a per-action term of the trunk, so what is learned about one card carries
to the others. Non-card actions (bids, draws) are scored from the trunk alone.

``CardNet`` is the torch module (scores and trunk); ``cardrl.train.policy.CardPolicy``
makes it MaskablePPO's actor-critic (the critic reads the trunk); ``CardActor`` is the
frozen copy opponent seats and snapshots play; the layout comes from the
encoders' own tables, so no game is named here.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch
from torch import nn

from cardrl.envs.encoding import CardTable
from cardrl.train.nets import TORCH_ACTIVATIONS, game_encoder
from cardrl.train.numpy_policy import MASKED


def card_table(game: str, preset: str | None = None, rule_changes: dict | None = None,
               observation: str = "infostate") -> CardTable:
    """The card table of ``game``'s ``observation`` for its rules' player count; a clear
    error where the encoder declares none."""
    enc, n = game_encoder(game, preset, rule_changes, observation)
    if enc.cards is None:
        raise ValueError(f"the {observation!r} observation of {game} declares no card table; "
                         "the card network needs one (envs.encoding.CardTable)")
    return enc.cards(n)


class CardNet(nn.Module):
    """obs (B, obs_size) -> (one score per action (B, A), trunk (B, H)); see the module doc."""

    def __init__(self, table: CardTable, obs_size: int, num_actions: int, embed: int = 32,
                 hidden: tuple[int, ...] = (256, 256), activation: str = "relu",
                 context: int = 32) -> None:
        super().__init__()
        if activation not in TORCH_ACTIVATIONS:
            raise ValueError(f"activation must be one of {list(TORCH_ACTIVATIONS)}, "
                             f"got {activation!r}")
        if table.action_card.shape[0] != num_actions:
            raise ValueError(f"card table has {table.action_card.shape[0]} actions, "
                             f"the game {num_actions}")
        if table.index.max() >= obs_size:
            raise ValueError(f"card table index {int(table.index.max())} outside an "
                             f"observation of {obs_size}")
        act = TORCH_ACTIVATIONS[activation]
        self.obs_size, self.num_actions, self.embed = obs_size, num_actions, embed
        self.num_cards, per_card = table.index.shape
        self.num_kinds = max(table.num_kinds, 1)
        scalars = table.scalar_index(obs_size)
        # -1 (no feature) reads the zero column appended at index obs_size
        card_index = np.where(table.index >= 0, table.index, obs_size).reshape(-1)
        self.register_buffer("card_index", torch.from_numpy(card_index), persistent=False)
        self.register_buffer("scalar_index", torch.from_numpy(scalars), persistent=False)
        # action a reads entry kind * cards + card of the (kind, card) scores; a non-card
        # action reads the zero appended after them
        blank = self.num_kinds * self.num_cards
        flat = np.where(table.action_card >= 0,
                        table.action_kind * self.num_cards + table.action_card, blank)
        self.register_buffer("action_flat", torch.from_numpy(flat), persistent=False)
        self.context = nn.Sequential(nn.Linear(len(scalars), context), act())
        self.card_id = nn.Parameter(0.1 * torch.randn(self.num_cards, embed))
        self.card_in = nn.Linear(per_card, embed)
        self.card_context = nn.Linear(context, embed, bias=False)
        self.card_mid = nn.Linear(embed, embed)
        self.act = act()
        layers: list[nn.Module] = []
        width = 2 * embed + len(scalars)
        for h in hidden:
            layers += [nn.Linear(width, h), act()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.hidden = width
        self.other = nn.Linear(width, num_actions)
        self.query = nn.Linear(width, self.num_kinds * embed)
        for head in (self.other, self.query):  # a new policy is close to uniform
            nn.init.orthogonal_(head.weight, gain=0.01)
            nn.init.zeros_(head.bias)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b = obs.shape[0]
        padded = torch.cat([obs, obs.new_zeros(b, 1)], dim=1)
        x = padded.index_select(1, self.card_index).view(b, self.num_cards, -1)
        s = obs.index_select(1, self.scalar_index)
        g = self.card_context(self.context(s)).unsqueeze(1)
        e = self.act(self.card_in(x) + g + self.card_id)
        e = self.act(self.card_mid(e))
        h = self.trunk(torch.cat([e.mean(dim=1), e.amax(dim=1), s], dim=1))
        q = self.query(h).view(b, self.num_kinds, self.embed)
        per_card = torch.einsum("bkd,bcd->bkc", q, e).reshape(b, -1)
        per_card = torch.cat([per_card, per_card.new_zeros(b, 1)], dim=1)
        return self.other(h) + per_card.index_select(1, self.action_flat), h


# ------------------------------------------------------------ the frozen copy
class CardActor:
    """A frozen copy of a card net that plays opponent seats (the ``NumpyPolicy`` protocol:
    ``logits``, ``act``, ``act_batch``, ``save``/``load``), on torch in the learner's process."""

    def __init__(self, net: CardNet) -> None:
        self.net = copy.deepcopy(net).cpu().eval()
        for p in self.net.parameters():
            p.requires_grad_(False)

    @property
    def obs_size(self) -> int:
        return self.net.obs_size

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, np.float32)
        single = obs.ndim == 1
        with torch.no_grad():
            z = self.net(torch.from_numpy(np.atleast_2d(obs)))[0].numpy()
        z = np.where(np.atleast_2d(mask) > 0, z, np.float32(MASKED))
        return z[0] if single else z

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            deterministic: bool = True) -> int:
        z = self.logits(obs, mask)
        if deterministic or rng is None:
            return int(np.argmax(z))
        return int(np.argmax(z + rng.gumbel(size=z.shape)))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  deterministic: bool = False) -> np.ndarray:
        z = self.logits(obs, masks)
        if not deterministic:
            z = z + rng.gumbel(size=z.shape).astype(np.float32)
        return z.argmax(axis=1)

    def save(self, path: str | Path) -> None:
        torch.save({"state": self.net.state_dict(), "config": self._config()}, path)

    def _config(self) -> dict:
        n = self.net
        return {"obs_size": n.obs_size, "num_actions": n.num_actions, "embed": n.embed,
                "hidden": [m.out_features for m in n.trunk if isinstance(m, nn.Linear)],
                "activation": "relu" if isinstance(n.act, nn.ReLU) else "tanh"}

    @classmethod
    def load(cls, path: str | Path, table: CardTable) -> CardActor:
        data = torch.load(path, weights_only=True)
        c = data["config"]
        net = CardNet(table, c["obs_size"], c["num_actions"], c["embed"], tuple(c["hidden"]),
                      c["activation"])
        net.load_state_dict(data["state"])
        return cls(net)


class CardLogits(nn.Module):
    """(observation, action_mask) -> masked scores of a card net: the graph ONNX gets."""

    def __init__(self, net: CardNet) -> None:
        super().__init__()
        self.net = copy.deepcopy(net).cpu().eval()

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.net(observation)[0]
        return torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED))
