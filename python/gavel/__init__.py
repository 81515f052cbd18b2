"""gavel: the engine's auction games in-process (docs/python.md).

    import gavel
    state = gavel.new_game("sultan", players=3, seed=7)
    while not state.finished:
        state.apply(state.legal_moves()[0])
    print(state.outcome())

States serialize to the same bytes the gavel service sends (`state.serialize()`,
`gavel.deserialize(...)`); views are gavel.v1.View bytes (`state.observe(seat)`) or dicts
(`state.observe_dict(seat)`); features are numpy arrays (`state.features(seat)`).
`gavel.AecEnv` is one table in the PettingZoo AEC style; `gavel.VectorEnv` steps many
tables per call, with the built-in bots' choices for all of them in one call as opponents
(`env.bot_actions("dirk")`). Dirk (`state.dirk_move()`), ISMCTS (`state.ismcts_move(iterations, seed)`)
and the learned and search bots (`gavel.LearnedBot("weights")`) play the seat to move from its
view, as opponents to measure against.
"""
from ._gavel import (LearnedBot, State, VectorEnv, deserialize, game_info, games,  # noqa: F401
                     new_game, resample)
from .env import AecEnv  # noqa: F401
