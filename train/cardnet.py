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

``CardNet`` is the torch module (scores and trunk); ``CardPolicy`` makes it
MaskablePPO's actor-critic (the critic reads the trunk); ``CardActor`` is the
frozen copy opponent seats and snapshots play; the layout comes from the
encoders' own tables, so no game is named here.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from cardrl.envs.encoding import CardTable
from cardrl.train.masked import FastMasking
from cardrl.train.numpy_policy import MASKED
from cardrl.train.policy import TORCH_ACTIVATIONS, game_encoder


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


# ------------------------------------------------------------ MaskablePPO's policy
class CardExtractor(BaseFeaturesExtractor):
    """SB3 features = [the card net's action scores | its trunk]."""

    def __init__(self, observation_space, table: CardTable, num_actions: int, embed: int,
                 hidden: tuple[int, ...], activation: str) -> None:
        net = CardNet(table, int(observation_space.shape[0]), num_actions, embed, hidden,
                      activation)
        super().__init__(observation_space, num_actions + net.hidden)
        self.net = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.cat(self.net(obs), dim=1)


class SplitLatent(nn.Module):
    """The extractor's output split: the scores go to the actor, the trunk to the critic."""

    def __init__(self, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.latent_dim_pi, self.latent_dim_vf = num_actions, hidden

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, :self.latent_dim_pi]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, self.latent_dim_pi:]


class CardPolicy(FastMasking, MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic over one ``CardNet``: the actor's logits are its scores,
    the critic a linear read of its trunk (one network, shared, as in CleanRL's Atari PPO)."""

    def __init__(self, observation_space, action_space, lr_schedule, *, table: CardTable,
                 embed: int = 32, hidden: tuple[int, ...] = (256, 256),
                 activation: str = "relu", **kwargs) -> None:
        self.card_kwargs = {"table": table, "embed": int(embed),
                            "hidden": tuple(int(h) for h in hidden), "activation": activation}
        kwargs.pop("net_arch", None)
        kwargs.pop("activation_fn", None)
        super().__init__(observation_space, action_space, lr_schedule, net_arch=[],
                         features_extractor_class=CardExtractor,
                         features_extractor_kwargs={"num_actions": int(action_space.n),
                                                    **self.card_kwargs},
                         ortho_init=False, share_features_extractor=True, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitLatent(int(self.action_space.n),
                                         self.features_extractor.net.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        for key in ("net_arch", "activation_fn", "features_extractor_class",
                    "features_extractor_kwargs", "ortho_init", "share_features_extractor"):
            data.pop(key, None)
        data.update(self.card_kwargs)
        return data

    @property
    def card_net(self) -> CardNet:
        return self.features_extractor.net


def policy_kwargs(game: str, preset: str | None, rule_changes: dict | None, observation: str,
                  embed: int, hidden: tuple[int, ...], activation: str) -> dict:
    """MaskablePPO's ``policy_kwargs`` for ``CardPolicy`` on one game's observation."""
    return {"table": card_table(game, preset, rule_changes, observation), "embed": embed,
            "hidden": tuple(hidden), "activation": activation}


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

    def __init__(self, net: CardNet, switch: nn.Module | None = None) -> None:
        super().__init__()
        self.net = copy.deepcopy(net).cpu().eval()
        self.switch = switch

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.net(observation)[0]
        logits = torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED))
        return logits if self.switch is None else self.switch(observation, action_mask, logits)
