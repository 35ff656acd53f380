"""Sevens' ``features`` observation: the information a seat holds plus the replies' arithmetic.

The vectors the shipped Sevens bot reads (``observation="features"``): the blocks of
``cardrl.envs.sevens.infostate`` (ending with its per-action ``play_points`` and
``reply_points``), then ``reply_expected``: per play of an own card, the points the next
player's best reply can be expected to earn after it, exact over the hands it could hold
(``cardrl.envs.sevens.reply``), which is what ``sevens/lookahead`` subtracts from a play's
points. Bump ``VERSION`` when the layout changes.

Each layout version's changes are in docs/envs/sevens.md (version history).
"""

from __future__ import annotations

import numpy as np

from cardrl.envs import encoding
from cardrl.envs.sevens import infostate
from cardrl.envs.sevens.actions import NUM_ACTIONS
from cardrl.envs.sevens.engine import RANK
from cardrl.envs.sevens.infostate import CLIP, POINT_SCALE
from cardrl.envs.sevens.reply import expected_reply_array
from cardrl.envs.sevens.view import SevensView

VERSION = 3

# the information blocks (all of them: ``infostate.write`` fills the first
# ``infostate.OBS_SIZE`` entries), then one of the features' own
LAYOUT = (
    *infostate.LAYOUT,  # ends with play_points and reply_points (per action of an own card)
    ("reply_expected", NUM_ACTIONS),  # per such action: the next player's expected best
)                                     # reply / POINT_SCALE
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)
_PLAY_POINTS = OFFSETS["play_points"]
_REPLY_EXPECTED = OFFSETS["reply_expected"]


def _action_points(view: SevensView, out: np.ndarray) -> None:
    values = view.params.values
    actions, new_totals = [], []
    for c in view.hand:
        for i, v in enumerate(values[RANK[c]]):
            actions.append(2 * c + i)
            new_totals.append(view.total + v)
    if not actions:
        return
    totals = np.array(new_totals)
    acts = np.array(actions)  # their points now and best replies': infostate.write
    unseen = view.unseen()
    expected = expected_reply_array(view, acts, totals, unseen)
    out[_REPLY_EXPECTED + acts] = np.clip(expected / POINT_SCALE, -CLIP, CLIP)


def encode(view: SevensView, out: np.ndarray | None = None) -> np.ndarray:
    """The ``features`` vector of ``view`` (written into ``out`` if given)."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    infostate.write(view, out)
    _action_points(view, out)
    return out


def action_features(num_players: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``Encoder.action_features``), any player count."""
    return tuple((OFFSETS[name], 0, NUM_ACTIONS)
                 for name in ("play_points", "reply_points", "reply_expected"))


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low, high = infostate.bounds(OBS_SIZE)
    low[_PLAY_POINTS:] = -CLIP
    high[_PLAY_POINTS:] = CLIP
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'play_points[60]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


FEATURES = encoding.Encoder(
    kind="features", version=VERSION, size=lambda n: OBS_SIZE, encode=encode,
    bounds=lambda n: observation_bounds(), describe=lambda n, i: describe(i),
    action_features=action_features)
