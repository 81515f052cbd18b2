#!/usr/bin/python3
"""A Sultan client written from the .proto files alone, with Debian's python3-grpcio.

It generates the Python stubs from proto/ with protoc and grpc_python_plugin, starts the
engine server (or uses --address), plays one full game with a random policy through
NewGame / LegalMoves / Apply / Observe, and checks what it sees.

    /usr/bin/python3 tests/python/sultan_client.py --engine build/service/gavel-engine
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def generate_stubs(proto_dir, out_dir):
    files = ["gavel/v1/engine.proto", "gavel/v1/sultan.proto"]
    subprocess.run(["protoc", "-I", proto_dir, f"--python_out={out_dir}",
                    f"--grpc_out={out_dir}",
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"] + files, check=True)
    sys.path.insert(0, out_dir)


def start_server(engine):
    server = subprocess.Popen([engine, "--listen=127.0.0.1:0", "--log_level=warn"],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()  # readiness: "listening on port N"
    if not line.startswith("listening on port "):
        server.kill()
        raise SystemExit(f"engine did not start: {line!r}")
    return server, f"127.0.0.1:{int(line.split()[-1])}"


def play(address, seed, players):
    import grpc
    from gavel.v1 import engine_pb2, engine_pb2_grpc, sultan_pb2

    stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
    games = {g.name: g for g in stub.ListGames(engine_pb2.ListGamesRequest()).games}
    assert "sultan" in games and games["sultan"].max_players == 5

    response = stub.NewGame(engine_pb2.NewGameRequest(game="sultan", players=players, seed=seed))
    state, status = response.state, response.status
    rng = random.Random(seed)
    moves = 0
    while not status.finished:
        seat = status.to_move
        legal = stub.LegalMoves(engine_pb2.LegalMovesRequest(
            state=engine_pb2.StateRef(full=state), seat=seat)).moves
        assert legal, "the seat to move has no legal move"
        view = stub.Observe(engine_pb2.ObserveRequest(
            state=engine_pb2.StateRef(full=state), seat=seat)).view
        sultan_view = sultan_pb2.SultanView()
        view.view.Unpack(sultan_view)
        for other, seat_view in enumerate(sultan_view.seats):
            if other != seat:
                assert not seat_view.hand, "another seat's hand is visible"
        move = rng.choice(legal)
        detail = sultan_pb2.SultanMove()
        move.detail.Unpack(detail)
        if detail.HasField("bid"):
            assert detail.bid.value in sultan_view.seats[seat].hand
        applied = stub.Apply(engine_pb2.ApplyRequest(
            state=engine_pb2.StateRef(full=state), move=move, seat=seat))
        state, status = applied.state, applied.status
        moves += 1
    # A move on a finished game is refused with FAILED_PRECONDITION.
    try:
        stub.Apply(engine_pb2.ApplyRequest(state=engine_pb2.StateRef(full=state), move=move))
        raise SystemExit("a finished game accepted a move")
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.code()
    results = ", ".join(f"seat {r.seat}: {r.score:.0f} (rank {r.rank})" for r in status.results)
    print(f"sultan, {players} players, seed {seed}: {moves} moves; {results}")
    assert min(r.rank for r in status.results) == 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", help="path of gavel-engine to start")
    parser.add_argument("--address", help="use a running server instead")
    parser.add_argument("--proto", default=os.path.join(os.path.dirname(__file__), "../../proto"))
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as stubs:
        generate_stubs(os.path.abspath(args.proto), stubs)
        server, address = (None, args.address) if args.address else start_server(args.engine)
        try:
            for game in range(args.games):
                play(address, args.seed + game, args.players)
        finally:
            if server:
                server.terminate()
                server.wait(timeout=30)
    print("1 passed, 0 failed" if args.games == 1 else f"{args.games} passed, 0 failed")


if __name__ == "__main__":
    main()
