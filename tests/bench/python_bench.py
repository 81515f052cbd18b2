"""`import gavel` throughput against the gRPC path, measured in one run (docs/python.md).

    PYTHONPATH=build/python GAVEL_ENGINE_BINARY=build/service/gavel-engine \
        /usr/bin/python3 tests/bench/python_bench.py [--seconds 2] [--tables 256]

Per game: a Python loop of legal_moves() + apply() (steps/s on one core); VectorEnv steps
with action masks (actions drawn in numpy), and with the movers' features too, each on one
thread and on two; and a Python loop over a local engine server, one Apply per move with
the next legal moves included.
"""
import argparse
import os
import random
import subprocess
import time

import numpy as np

import gavel
from gavel.v1 import engine_pb2, engine_pb2_grpc


def timed(seconds, body):
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += body()
    return steps / (time.perf_counter() - start)


def python_loop(name, players, seconds):
    rng = random.Random(1)
    seed = [0]

    def one_game():
        seed[0] += 1
        state, steps = gavel.new_game(name, players, seed[0]), 0
        while not state.finished:
            legal = state.legal_moves()
            state.apply(legal[rng.randrange(len(legal))])
            steps += 1
        return steps
    return timed(seconds, one_game)


def vector(name, players, seconds, tables, features, threads=1):
    env = gavel.VectorEnv(name, players, num_envs=tables, seed=1, threads=threads)
    _, mask = env.observe()
    rng = np.random.default_rng(1)
    state = {"mask": mask}

    def one_step():
        counts = state["mask"].sum(axis=1)
        _, _, _, state["mask"] = env.step((rng.random(env.num_envs) * counts).astype(np.int64))
        if features:
            env.observations()
        return env.num_envs
    return timed(seconds, one_step)


def grpc_loop(stub, name, players, seconds):
    rng = random.Random(1)
    include = engine_pb2.Include(legal_moves=True)
    seed = [0]

    def one_game():
        seed[0] += 1
        response = stub.NewGame(engine_pb2.NewGameRequest(game=name, players=players, seed=seed[0], include=include))
        state, legal, steps = response.state, response.legal_moves, 0
        while legal:
            applied = stub.Apply(engine_pb2.ApplyRequest(state=engine_pb2.StateRef(full=state),
                                                         move=engine_pb2.Move(id=rng.choice(legal).id),
                                                         include=include))
            state, legal, steps = applied.state, applied.legal_moves, steps + 1
        return steps
    return timed(seconds, one_game)


def main():
    import grpc
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--tables", type=int, default=256, help="VectorEnv's num_envs")
    args = parser.parse_args()
    server = subprocess.Popen([os.environ["GAVEL_ENGINE_BINARY"], "--listen=127.0.0.1:0", "--log_level=warn"],
                              stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().split()[-1]
    stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
    print(f"{'game':18} {'python loop':>12} {'vector+mask':>12} {'mask 2 thr':>12} {'vector+feat':>12}"
          f" {'feat 2 thr':>12} {'gRPC loop':>10}  steps/s")
    try:
        for name in gavel.games():
            players = min(4, gavel.game_info(name)["max_players"])
            figures = [python_loop(name, players, args.seconds)]
            figures += [vector(name, players, args.seconds, args.tables, features, threads)
                        for features in (False, True) for threads in (1, 2)]
            figures.append(grpc_loop(stub, name, players, args.seconds))
            print(f"{name:18} " + " ".join(f"{f:12,.0f}" for f in figures[:5]) + f" {figures[5]:10,.0f}"
                  f"  (python loop {figures[0] / figures[5]:.0f}x gRPC; two threads {figures[2] / figures[1]:.2f}x"
                  f" masks, {figures[4] / figures[3]:.2f}x features)")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
