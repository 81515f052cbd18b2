"""One table as a multi-agent environment in the PettingZoo AEC style (without PettingZoo).

Agents are seat numbers. Actions are indices into the acting seat's legal moves, so the
action mask of a step is `[True] * len(legal)`; `info["moves"]` lists the legal move ids and
`info["texts"]` their texts. Observations are the engine's learning features of the agent's
view (float32). Rewards come at the end: (seats - rank) / (seats - 1), 1 for the winner.
"""
import numpy as np

from ._gavel import new_game


class AecEnv:
    def __init__(self, game, players, seed=1, options=None):
        self.game, self.players, self.options = game, players, dict(options or {})
        self.reset(seed)

    def reset(self, seed=None):
        if seed is not None:
            self._seed = seed
        self.state = new_game(self.game, self.players, self._seed, self.options)
        self._seed += 1
        self.agents = list(range(self.state.seats))
        self.rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        return self

    @property
    def agent_selection(self):
        return self.state.to_move

    def observe(self, agent):
        observation, _ = self.state.features(agent)
        return observation

    def action_mask(self):
        return np.ones(len(self.state.legal_moves()), dtype=bool)

    def last(self):
        agent = self.agent_selection
        legal = self.state.legal_moves()
        info = {"moves": legal, "texts": [self.state.move_text(m) for m in legal]}
        observation = self.observe(agent) if agent >= 0 else None
        done = self.state.finished
        return observation, self.rewards.get(agent, 0.0), done, False, info

    def step(self, action):
        legal = self.state.legal_moves()
        if not 0 <= action < len(legal):
            raise ValueError(f"action {action} is not an index of the {len(legal)} legal moves")
        self.state.apply(legal[action])
        if self.state.finished:
            _, ranks = self.state.outcome()
            seats = self.state.seats
            for agent in self.agents:
                self.rewards[agent] = (seats - ranks[agent]) / (seats - 1) if seats > 1 else 1.0
                self.terminations[agent] = True
