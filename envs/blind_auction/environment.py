"""PettingZoo envs for Blind Auction (``blind_auction_v1``): AEC and Parallel.

    from cardrl.envs.blind_auction import env, parallel_env
    e = env(num_players=3, tie_rule="carry")      # or preset="3p"; any rules field
    e.reset(seed=1, options={"deal": ["2D", "AD", ...]})   # a given prize order

AEC: the seats bid in seat order; an observation never shows another seat's
bid before the round resolves (the observer's "acted" flags say only who has
bid). Parallel: every seat bids at once each round. Observations are
``{"observation": float32[INFOSTATE.size(n)], "action_mask": int8[13]}`` (sizes on
docs/envs/blind_auction.md); a game is one hand, so the hand reward (the score less the
others' mean, over ``score_scale``, by default the prize total) and the win bonus come
together at the end.
"""

from __future__ import annotations

import numpy as np
from pettingzoo import ParallelEnv

from cardrl.envs.aec import CardGameEnv
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.game import GAME

ENV_NAME = GAME.env_name


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    game = GAME
    state_obj: BlindAuctionState | None  # this game's engine (``GAME.state``)


def env(**kwargs) -> raw_env:
    """The Blind Auction AEC env (unwrapped: ``raw_env`` checks the call order itself)."""
    return raw_env(**kwargs)


class parallel_raw_env(ParallelEnv):  # noqa: N801 - PettingZoo naming
    """Blind Auction through PettingZoo's Parallel API: every seat bids at once.

    Built on the AEC env (same options, rewards and illegal-action handling):
    a step checks every action first, so an illegal one raises naming the agent
    and changes nothing (or, with ``illegal_action="penalty"``, is replaced as
    in the AEC env), then plays the bids in seat order. Every live agent's mask
    is its own hand.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": ENV_NAME, "is_parallelizable": True}

    def __init__(self, **kwargs) -> None:
        self.aec = raw_env(**kwargs)
        self.rules = self.aec.rules
        self.render_mode = self.aec.render_mode
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []

    def observation_space(self, agent):  # the same object every call, as PettingZoo requires
        return self.aec.observation_space(agent)

    def action_space(self, agent):
        return self.aec.action_space(agent)

    @property
    def state_obj(self) -> BlindAuctionState | None:
        return self.aec.state_obj

    def _observations(self) -> dict:
        state = self.aec.state_obj
        assert state is not None  # after reset
        observe = self.aec._observation
        mask = self.aec._mask  # every live seat's own hand (legal_for): they bid at once
        return {a: {"observation": observe(state, seat), "action_mask": mask(state.legal_for(seat))}
                for seat, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict):
        """Every live agent's bid at once. A bad ``actions`` (not a dict, an agent missing
        or unknown) raises and changes nothing, whatever ``illegal_action`` says; an
        illegal bid raises too unless ``illegal_action="penalty"``."""
        if not self.agents:
            raise ValueError("step() after the game ended: call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict of agent -> bid, got {actions!r}")
        unknown = [a for a in actions if a not in self.agents]
        if unknown:
            raise ValueError(f"actions for unknown or finished agent(s) {unknown}; the live "
                             f"agents are {self.agents}")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions missing for {missing}; every live agent bids each step")
        state = self.aec.state_obj
        assert state is not None  # agents are live: reset made it
        if self.aec.illegal_action == "raise":  # every bid checked before any is played
            for seat, agent in enumerate(self.agents):
                self.aec.payout.resolve(state.legal_for(seat), actions[agent], agent,
                                        GAME.action_name, self.aec._draw)
        rewards = {a: 0.0 for a in self.agents}
        aec = self.aec
        for agent in self.agents:
            aec.step(actions[agent])
            for a in self.agents:
                rewards[a] += aec.rewards[a]
        terminations = dict(aec.terminations)
        truncations = dict(aec.truncations)
        obs = self._observations()
        infos: dict[str, dict] = {a: {} for a in self.agents}
        if all(terminations.values()):
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def state(self) -> np.ndarray:
        """The global state: every seat's observation side by side (a critic's input)."""
        state = self.aec.state_obj
        return np.concatenate([self.aec._observation(state, s)
                               for s in range(len(self.possible_agents))])


def parallel_env(**kwargs) -> parallel_raw_env:
    """The Blind Auction Parallel env (same options as ``env``)."""
    return parallel_raw_env(**kwargs)
