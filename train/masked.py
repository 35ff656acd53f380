"""MaskablePPO's hot paths, the same numbers with less work: the policy's two passes
without a distribution object, and minibatches without a second copy.

sb3-contrib's ``MaskableActorCriticPolicy.forward`` (every rollout step) and
``evaluate_actions`` (every minibatch of every epoch) build a
``MaskableCategorical``: a ``torch.distributions.Categorical`` normalised once,
checked (argument validation), masked, normalised again, then asked for a sample,
log-probabilities and the entropy, each its own pass. ``FastMasking`` computes the
same numbers in one pass over the masked logits: ``log_softmax`` of the logits with
illegal actions at ``MASKED`` (sb3-contrib's value), a sample from those
probabilities, the taken actions' log-probabilities, and the entropy over the legal
actions only. A test checks them against sb3-contrib's own.

Everything else (``predict``, ``get_distribution``, deterministic play, export) is
sb3-contrib's unchanged.

``SingleCopyRolloutBuffer``: sb3-contrib's buffer gathers a minibatch by fancy indexing
(a new array) and then copies it again into a tensor; the tensor here takes the
gathered array as it is.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples

from cardrl.train.numpy_policy import MASKED


class SingleCopyRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` whose minibatch tensors share the gathered arrays."""

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:
        data = (self.observations[batch_inds], self.actions[batch_inds],
                self.values[batch_inds].flatten(), self.log_probs[batch_inds].flatten(),
                self.advantages[batch_inds].flatten(), self.returns[batch_inds].flatten(),
                self.action_masks[batch_inds].reshape(-1, self.mask_dims))
        # fancy indexing made each array anew: no second copy
        return MaskableRolloutBufferSamples(*(self.to_torch(x, copy=False) for x in data))


class FastMasking:
    """A mixin before ``MaskableActorCriticPolicy``: ``forward`` and ``evaluate_actions``
    from the masked log-softmax directly (module docstring)."""

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features))

    def _masked_log_probs(self, latent_pi: torch.Tensor, action_masks) -> torch.Tensor:
        logits = self.action_net(latent_pi)
        if action_masks is not None:
            masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device)
            logits = logits.masked_fill(~masks.reshape(logits.shape), MASKED)
        return torch.log_softmax(logits, dim=1)

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        log_probs = self._masked_log_probs(latent_pi, action_masks)
        if deterministic:
            actions = log_probs.argmax(dim=1)
        else:
            actions = torch.multinomial(log_probs.exp(), 1).squeeze(1)
        log_prob = log_probs.gather(1, actions[:, None]).squeeze(1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        log_probs = self._masked_log_probs(latent_pi, action_masks)
        log_prob = log_probs.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        # an illegal action's probability is exactly 0 (exp(-1e8) underflows), so it adds
        # nothing to the entropy: no second mask
        entropy = -(log_probs.exp() * log_probs).sum(dim=1)
        return self.value_net(latent_vf), log_prob, entropy
