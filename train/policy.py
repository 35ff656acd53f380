"""MaskablePPO's policies: the masked MLP actor-critic with a linear path from per-action
features straight to their actions' logits, the card network's actor-critic, and the frozen
copies and export graphs of both.

Several encoders hold blocks that describe one action each (Gin Rummy's deadwood and
look-ahead per discard, Sevens' points per play, Spades' chance that each card wins the
trick). A rule bot often picks the action with the best weighted sum of such features,
which an MLP would have to route through its hidden layers. Here each block
(``ActionFeatures``: observation offset, first action, length) adds ``weight x feature``
to its actions' logits, one weight per block shared by its actions; the MLP learns the
rest. The weights start at 0, so a new policy is SB3's. At export the path is one
constant (obs_size x num_actions) matrix (``ActionFeatureHead.skip_matrix``): ONNX and
``NumpyPolicy`` add ``obs @ S``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn

from cardrl.envs.encoding import CardTable
from cardrl.train.cardnet import CardActor, CardLogits, CardNet, card_table
from cardrl.train.masked import FastMasking
from cardrl.train.nets import TORCH_ACTIVATIONS, ActionFeatures
from cardrl.train.numpy_policy import MASKED, NumpyPolicy


class ActionFeatureHead(nn.Module):
    """logits = Linear(hidden) + sum over blocks of weight_k x obs[block k], placed on
    its actions. Its input is the actor's hidden layer with the observation after it.

    ``weight`` is ``GAIN`` x a learned parameter: features are scaled to about [0, 1],
    a rule bot's preference needs weights in the hundreds, and Adam moves a parameter
    by about its learning rate per step (the gains measured: docs/results.md, "The
    per-action path's gain")."""

    GAIN = 1000.0

    def __init__(self, hidden: int, obs_size: int, num_actions: int,
                 blocks: ActionFeatures) -> None:
        super().__init__()
        self.hidden, self.obs_size, self.num_actions = hidden, obs_size, num_actions
        self.blocks = tuple(tuple(int(x) for x in b) for b in blocks)
        for offset, first, length in self.blocks:
            if offset < 0 or offset + length > obs_size or first < 0 \
                    or first + length > num_actions or length < 1:
                raise ValueError(f"action feature block {(offset, first, length)} does not fit "
                                 f"an observation of {obs_size} and {num_actions} actions")
        self.linear = nn.Linear(hidden, num_actions)
        self.raw_weight = nn.Parameter(torch.zeros(len(self.blocks)))
        # entry e of the skip matrix: row obs_at[e], column action_at[e], weight block_of[e]
        entries = np.array([(o + i, a + i, k) for k, (o, a, n) in enumerate(self.blocks)
                            for i in range(n)], dtype=np.int64).reshape(-1, 3)
        for j, name in enumerate(("obs_at", "action_at", "block_of")):
            self.register_buffer(name, torch.from_numpy(entries[:, j].copy()), persistent=False)

    @property
    def weight(self) -> torch.Tensor:
        return self.GAIN * self.raw_weight

    def _skip(self) -> torch.Tensor:
        s = torch.zeros(self.obs_size, self.num_actions, device=self.raw_weight.device)
        return s.index_put((self.obs_at, self.action_at), self.weight[self.block_of],
                           accumulate=True)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        hidden, obs = latent[:, :self.hidden], latent[:, self.hidden:]
        logits = self.linear(hidden)
        return logits + obs @ self._skip() if self.blocks else logits

    def skip_matrix(self) -> np.ndarray:
        """The path as one (obs_size, num_actions) matrix S: logits += obs @ S."""
        with torch.no_grad():
            return self._skip().cpu().numpy().astype(np.float32)


class ObsPassingExtractor(MlpExtractor):
    """SB3's MLP extractor whose actor output also carries the observation, for the head."""

    def __init__(self, feature_dim: int, **kwargs) -> None:
        super().__init__(feature_dim, **kwargs)
        self.hidden_pi = self.latent_dim_pi
        self.latent_dim_pi = self.hidden_pi + feature_dim

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features), features], dim=1)


class ActionFeaturePolicy(FastMasking, MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with ``ActionFeatureHead`` as its action net
    (and ``cardrl.train.masked.FastMasking``'s rollout and update passes)."""

    def __init__(self, *args, action_features: Sequence[Sequence[int]] = (), **kwargs) -> None:
        self.action_features: ActionFeatures = tuple(tuple(int(x) for x in b)
                                                     for b in action_features)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ObsPassingExtractor(self.features_dim, net_arch=self.net_arch,
                                                 activation_fn=self.activation_fn,
                                                 device=self.device)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        head = ActionFeatureHead(self.mlp_extractor.hidden_pi, self.features_dim,
                                 int(self.action_space.n), self.action_features)
        if self.ortho_init:
            head.linear.apply(lambda m: self.init_weights(m, gain=0.01))
        self.action_net = head.to(self.device)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["action_features"] = self.action_features
        return data


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


def card_policy_kwargs(game: str, preset: str | None, rule_changes: dict | None, observation: str,
                  embed: int, hidden: tuple[int, ...], activation: str) -> dict:
    """MaskablePPO's ``policy_kwargs`` for ``CardPolicy`` on one game's observation."""
    return {"table": card_table(game, preset, rule_changes, observation), "embed": embed,
            "hidden": tuple(hidden), "activation": activation}


# ------------------------------------------------------------ frozen copies, export
def _actor_parts(policy: Any) -> tuple[list[nn.Module], np.ndarray | None]:
    """The actor path of an SB3 MLP policy: hidden layers, then the action head's
    Linear; and ``ActionFeatureHead``'s skip matrix (None for a plain head)."""
    extractor = policy.features_extractor if policy.share_features_extractor \
        else policy.pi_features_extractor
    if type(extractor).__name__ != "FlattenExtractor":
        raise ValueError(f"only MLP policies over flat observations export; got {extractor!r}")
    head = policy.action_net
    if isinstance(head, ActionFeatureHead):
        return [*policy.mlp_extractor.policy_net, head.linear], head.skip_matrix()
    return [*policy.mlp_extractor.policy_net, head], None


def policy_weights(policy: Any) -> NumpyPolicy | CardActor:
    """The actor network of an SB3 policy as a frozen copy opponents play: a
    ``NumpyPolicy`` of an MLP policy, a ``CardActor`` of a card policy."""
    if isinstance(policy, CardPolicy):
        return CardActor(policy.card_net)
    layers, activation = [], None
    modules, skip = _actor_parts(policy)
    for module in modules:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(),
                           module.bias.detach().cpu().numpy().copy()))
        elif type(module) in TORCH_ACTIVATIONS.values():
            name = next(n for n, kind in TORCH_ACTIVATIONS.items() if type(module) is kind)
            if activation not in (None, name):
                raise ValueError("mixed activations do not export")
            activation = name
        else:
            raise ValueError(f"cannot export layer {module!r}")
    return NumpyPolicy(layers, activation or "tanh", skip=skip)


class MaskedLogits(nn.Module):
    """(observation, action_mask) -> masked logits of an SB3 MLP actor: the graph ONNX
    gets."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        modules, skip = _actor_parts(policy)
        self.actor = nn.Sequential(*modules)
        self.skip = None if skip is None else nn.Parameter(torch.from_numpy(skip),
                                                            requires_grad=False)

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.actor(observation)
        if self.skip is not None:
            logits = logits + observation @ self.skip
        return torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED))


def actor_graph(policy: Any) -> nn.Module:
    """An SB3 policy's actor as the exported graph (``cardrl.train.export.export_bot``)."""
    return CardLogits(policy.card_net) if isinstance(policy, CardPolicy) else MaskedLogits(policy)

