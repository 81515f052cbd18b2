#!/usr/bin/python3
"""Trains a small policy for one game with numpy, against Dirk (or random) seats, and plays it.

A linear softmax over each legal move's features (gavel's learning features of the mover's
view), trained with REINFORCE on the end reward (1 for a win, 0 for the last place) in
tables of one learner against Dirk's rules (state.dirk_move()) or random seats. It is an
example of the loop, not a strong bot.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_policy.py --game sultan \
        --seconds 30 --save sultan-linear.npz
    # then, with an arena running:
    PYTHONPATH=build/python /usr/bin/python3 examples/python/train_policy.py --load sultan-linear.npz \
        --play 127.0.0.1:50061 --name linear
"""
import argparse
import random
import time

import numpy as np

import gavel


def choose(weights, move_features, rng, explore=True):
    logits = move_features @ weights
    if not explore:
        return int(np.argmax(logits))
    p = np.exp(logits - logits.max())
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def play(game, players, seed, weights, rng, learner=0, explore=True, trace=None, opponent="dirk"):
    """One table: the learner's seat uses the policy, the others Dirk's rules or random."""
    state = gavel.new_game(game, players, seed)
    while not state.finished:
        legal = state.legal_moves()
        if state.to_move == learner:
            _, move_features = state.features(learner)
            index = choose(weights, move_features, rng, explore)
            if trace is not None:
                trace.append((move_features, index))
        elif opponent == "dirk":
            index = legal.index(state.dirk_move())
        else:
            index = rng.integers(len(legal))
        state.apply(legal[index])
    _, ranks = state.outcome()
    return (players - ranks[learner]) / (players - 1)


def train(game, players, seconds, opponent, rate=0.05, seed=1):
    rng = np.random.default_rng(seed)
    state = gavel.new_game(game, players, 1)
    weights = np.zeros(state.features(state.to_move)[1].shape[1], dtype=np.float32)
    baseline, games, start = 0.5, 0, time.time()
    while time.time() - start < seconds:
        trace = []
        reward = play(game, players, 1000 + games, weights, rng, learner=games % players, trace=trace,
                      opponent=opponent)
        advantage = reward - baseline
        baseline += 0.01 * (reward - baseline)
        for move_features, index in trace:  # the gradient of log softmax
            logits = move_features @ weights
            p = np.exp(logits - logits.max())
            p /= p.sum()
            weights += rate * advantage * (move_features[index] - p @ move_features)
        games += 1
    return weights, games


def evaluate(game, players, weights, opponent, tables=200):
    rng = np.random.default_rng(7)
    wins = sum(play(game, players, 90000 + t, weights, rng, learner=t % players, explore=False,
                    opponent=opponent) == 1.0
               for t in range(tables))
    return wins / tables


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sultan")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--opponent", choices=["dirk", "random"], default="dirk")
    parser.add_argument("--save", default="")
    parser.add_argument("--load", default="")
    parser.add_argument("--play", default="", help="an arena address: play there with the policy")
    parser.add_argument("--name", default="linear")
    args = parser.parse_args()
    if args.load:
        saved = np.load(args.load)
        weights, args.game = saved["weights"], str(saved["game"])
    else:
        weights, games = train(args.game, args.players, args.seconds, args.opponent)
        print(f"trained on {games} tables of {args.game} in {args.seconds:.0f} s")
        if args.save:
            np.savez(args.save, weights=weights, game=args.game)
    untrained = np.zeros_like(weights)
    for opponent in ("dirk", "random"):
        print(f"win rate against {opponent} at {args.players} seats (fair share {1 / args.players:.2f}): "
              f"trained {evaluate(args.game, args.players, weights, opponent):.2f}, "
              f"untrained {evaluate(args.game, args.players, untrained, opponent):.2f}")
    if args.play:
        import gavel.arena_bot

        def policy(view, legal):
            state = gavel.resample(view.SerializeToString(), 0)  # the features need the view only
            _, move_features = state.features(view.seat)
            return legal[choose(weights, move_features, None, explore=False)].id
        gavel.arena_bot.run(policy, name=args.name, games=[args.game], arena=args.play)


if __name__ == "__main__":
    main()
