"""The policy network as plain numpy: what opponent seats run inside env worker processes.

Self-play and frozen snapshots act in the SB3 env workers, which must stay
torch-free (cheap to start, no thread fights with the learner). The learner's
actor network (MLP + action head, masked argmax or masked sampling) is copied
out as arrays by ``cardrl.train.export.policy_weights`` and evaluated here; the layout
is a plain dict so it pickles to workers and saves as ``.npz``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
MASKED = -1e8  # what a masked logit becomes, as in sb3-contrib's MaskableCategorical


class NumpyPolicy:
    """Masked MLP policy: ``layers`` = [(W, b), ...] (W is out x in), hidden activation,
    and ``skip`` (obs_size x num_actions, ``cardrl.train.policy``'s per-action feature path):
    logits = MLP(obs) + obs @ skip."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str,
                 skip: np.ndarray | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; choose from {list(ACTIVATIONS)}")
        if not layers:
            raise ValueError("a policy needs at least one layer")
        self.layers = [(np.ascontiguousarray(w, np.float32).T.copy(),
                        np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.skip = None
        if skip is not None:
            skip = np.ascontiguousarray(skip, np.float32)
            expected = (self.layers[0][0].shape[0], self.layers[-1][0].shape[1])
            if skip.shape != expected:
                raise ValueError(f"skip matrix of shape {skip.shape}; the layers need {expected}")
            self.skip = skip if skip.any() else None  # all zero: nothing to add

    @property
    def obs_size(self) -> int:
        return self.layers[0][0].shape[0]

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Masked logits of one observation (illegal actions get ``MASKED``)."""
        x = obs = np.asarray(obs, np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = self._act(x)
        if self.skip is not None:
            x = x + obs @ self.skip
        return np.where(np.asarray(mask) > 0, x, np.float32(MASKED))

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            deterministic: bool = True) -> int:
        """Masked argmax, or a sample from the masked softmax when not ``deterministic``."""
        z = self.logits(obs, mask)
        if deterministic or rng is None:
            return int(np.argmax(z))
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        return int(np.searchsorted(np.cumsum(p), rng.random() * p.sum() * (1 - 1e-9)))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  deterministic: bool = False) -> np.ndarray:
        """Actions for a batch of observations and masks: masked argmax, or a sample of
        each masked softmax (the Gumbel-max draw: one argmax, no softmax needed)."""
        z = self.logits(obs, masks)
        if not deterministic:
            z = z + rng.gumbel(size=z.shape).astype(np.float32)
        return z.argmax(axis=1)

    # ----------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        return {"activation": self.activation,
                "layers": [(w.T.copy(), b.copy()) for w, b in self.layers],
                "skip": None if self.skip is None else self.skip.copy()}

    @classmethod
    def from_dict(cls, d: dict) -> NumpyPolicy:
        return cls(d["layers"], d["activation"], d.get("skip"))

    def save(self, path: str | Path) -> None:
        arrays = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w.T, b
        if self.skip is not None:
            arrays["skip"] = self.skip
        np.savez(path, activation=np.array(self.activation), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        with np.load(path) as f:
            n = sum(1 for k in f.files if k.startswith("w"))
            return cls([(f[f"w{i}"], f[f"b{i}"]) for i in range(n)], str(f["activation"]),
                       f["skip"] if "skip" in f.files else None)
