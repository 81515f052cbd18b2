#!/usr/bin/python3
"""Trains a small policy for one game with numpy, against Dirk (or random) seats, and plays it.

A linear softmax over each legal move's features (gavel's learning features of the mover's
view), trained with REINFORCE on the end reward (1 for a win, 0 for the last place) in
tables of one learner against Dirk's rules or random seats. Training steps many tables at
once in a gavel.VectorEnv (the opponents' moves from env.bot_actions, the learner's moves'
features from env.observations(moves=True)); evaluation and arena play go one table at a
time through gavel.State. It is an example of the loop, not a strong bot.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_policy.py --game sultan \
        --seconds 30 --save sultan-linear.npz
    # then, with an arena running:
    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_policy.py --load sultan-linear.npz \
        --play 127.0.0.1:50061 --name linear
"""
import argparse
import time

import numpy as np

import gavel


def best(weights, move_features):
    """The index of the legal move the policy scores highest (it explores only in training)."""
    return int(np.argmax(move_features @ weights))


def play(game, players, seed, weights, rng, learner=0, opponent="dirk"):
    """One table: the learner's seat uses the policy, the others Dirk's rules or random."""
    state = gavel.new_game(game, players, seed)
    while not state.finished:
        legal = state.legal_moves()
        if state.to_move == learner:
            _, move_features = state.features(learner)
            index = best(weights, move_features)
        elif opponent == "dirk":
            index = legal.index(state.dirk_move())
        else:
            index = rng.integers(len(legal))
        state.apply(legal[index])
    _, ranks = state.outcome()
    return (players - ranks[learner]) / (players - 1)


def train(game, players, seconds, opponent, tables=256, threads=2, rate=0.05, seed=1):
    """REINFORCE over `tables` tables at a time; table i's learner sits at seat i % players."""
    env = gavel.VectorEnv(game, players, num_envs=tables, seed=1000, threads=threads)
    learner = np.arange(tables) % players
    rng = np.random.default_rng(seed)
    to_move, mask = env.observe()
    weights = np.zeros(env.observations(moves=True)[1].shape[2], dtype=np.float32)
    gradients = np.zeros((tables, weights.size), dtype=np.float32)  # each table's sum of grad log p
    baseline, games, steps, start = 0.5, 0, 0, time.time()
    while time.time() - start < seconds:
        actions = env.bot_actions(opponent, seed=steps)
        mine = np.flatnonzero(to_move == learner)
        if mine.size:
            move_features = env.observations(moves=True)[1][mine]  # [tables, widest turn, features]
            logits = np.where(mask[mine, :move_features.shape[1]], move_features @ weights, -np.inf)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            chosen = (p.cumsum(axis=1) > rng.random((mine.size, 1))).argmax(axis=1)
            actions[mine] = chosen
            gradients[mine] += move_features[np.arange(mine.size), chosen] - np.einsum("ta,taf->tf", p, move_features)
        reward, done, to_move, mask = env.step(actions)
        for i in np.flatnonzero(done):
            advantage = reward[i, learner[i]] - baseline
            baseline += 0.01 * advantage
            weights += rate * advantage * gradients[i]
            gradients[i] = 0
            games += 1
        steps += 1
    return weights, games


def evaluate(game, players, weights, opponent, tables=200):
    rng = np.random.default_rng(7)
    wins = sum(play(game, players, 90000 + t, weights, rng, learner=t % players, opponent=opponent) == 1.0
               for t in range(tables))
    return wins / tables


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sultan")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--opponent", choices=["dirk", "random"], default="dirk")
    parser.add_argument("--tables", type=int, default=256, help="tables stepped at once in training")
    parser.add_argument("--threads", type=int, default=2, help="the training environment's threads")
    parser.add_argument("--eval_tables", type=int, default=200, help="tables per win rate")
    parser.add_argument("--save", default="")
    parser.add_argument("--load", default="")
    parser.add_argument("--play", default="", help="an arena address: play there with the policy")
    parser.add_argument("--name", default="linear")
    args = parser.parse_args()
    if args.load:
        saved = np.load(args.load)
        weights, args.game = saved["weights"], str(saved["game"])
    else:
        weights, games = train(args.game, args.players, args.seconds, args.opponent, args.tables, args.threads)
        print(f"trained on {games} tables of {args.game} in {args.seconds:.0f} s")
        if args.save:
            np.savez(args.save, weights=weights, game=args.game)
    untrained = np.zeros_like(weights)
    for opponent in ("dirk", "random"):
        print(f"win rate against {opponent} at {args.players} seats (fair share {1 / args.players:.2f}): "
              f"trained {evaluate(args.game, args.players, weights, opponent, args.eval_tables):.2f}, "
              f"untrained {evaluate(args.game, args.players, untrained, opponent, args.eval_tables):.2f}")
    if args.play:
        import gavel.arena_bot

        def policy(view, legal):
            state = gavel.resample(view.SerializeToString(), 0)  # the features need the view only
            _, move_features = state.features(view.seat)
            return legal[best(weights, move_features)].id
        gavel.arena_bot.run(policy, name=args.name, games=[args.game], arena=args.play)


if __name__ == "__main__":
    main()
