#!/usr/bin/python3
"""Three phones play every game with sealed states, written from the .proto files alone.

A turn-based mobile game without a game server database: the table's state travels as a
sealed token from phone to phone through a match service, the way the phone platforms'
turn-based match services pass match data. The engine holds the only keys.

- The backend creates the table with NewGame(seal=true). It keeps the owner's capability and
  hands each phone only its own seat's capability.
- The match service stores the token between turns. It reads the token's header (no key
  needed) and accepts a new token only for the same table with the next move number, which
  is what stops a phone from replaying an older token to try another move.
- A phone on its turn sends the token with its capability: LegalMoves, then Apply, which
  returns the new token and that seat's own view and events, never the state.
- An eavesdropper holds every token but no capability: every call it tries is refused, and
  the token does not contain the state's bytes.

    /usr/bin/python3 examples/python/sealed_phones.py --engine build/service/gavel-engine
"""
import argparse
import glob
import os
import random
import struct
import subprocess
import sys
import tempfile

PHONES = 3


def generate_stubs(proto_dir, out_dir):
    files = [os.path.relpath(path, proto_dir)
             for path in glob.glob(os.path.join(proto_dir, "gavel/v1/*.proto"))]
    subprocess.run(["protoc", "-I", proto_dir, f"--python_out={out_dir}",
                    f"--grpc_out={out_dir}",
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"] + files, check=True)
    sys.path.insert(0, out_dir)


def start_server(engine, key_file):
    """Writes a fresh key file with the engine's key generator and starts the engine on it."""
    key_line = subprocess.run([engine, "--new_sealing_key=1"], check=True,
                              capture_output=True, text=True).stdout
    with open(key_file, "w") as out:
        out.write(key_line)
    os.chmod(key_file, 0o600)
    server = subprocess.Popen([engine, "--listen=127.0.0.1:0", "--log_level=warn",
                               f"--sealing_keys={key_file}"], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()  # readiness: "listening on port N"
    if not line.startswith("listening on port "):
        server.kill()
        raise SystemExit(f"engine did not start: {line!r}")
    return server, f"127.0.0.1:{int(line.split()[-1])}"


def read_header(token):
    """The token's header in the clear: version, key id, game, table id, move number."""
    version, key_id, name_length = token[0], token[1], token[2]
    game = token[3:3 + name_length].decode()
    table = token[3 + name_length:11 + name_length]
    (move_number,) = struct.unpack_from("<I", token, 11 + name_length)
    return {"version": version, "key_id": key_id, "game": game, "table": table,
            "move_number": move_number}


class MatchService:
    """Stores one table's token; takes a new one only for the next move number."""

    def __init__(self, token):
        self.token = token
        self.header = read_header(token)
        assert self.header["move_number"] == 0

    def submit(self, token):
        header = read_header(token)
        if header["table"] != self.header["table"] or header["game"] != self.header["game"]:
            return False
        if header["move_number"] != self.header["move_number"] + 1:
            return False
        self.token, self.header = token, header
        return True


class Phone:
    """One player's device: its seat, its capability, nothing else."""

    def __init__(self, stub, pb, seat, capability, seed):
        self.stub, self.pb, self.seat, self.capability = stub, pb, seat, capability
        self.rng = random.Random(seed)
        self.events_seen = 0

    def ref(self, token):
        return self.pb.StateRef(sealed=self.pb.SealedState(token=token, seat_capability=self.capability))

    def take_turn(self, token):
        pb = self.pb
        legal = self.stub.LegalMoves(pb.LegalMovesRequest(state=self.ref(token), seat=self.seat))
        assert legal.moves, "the seat to move has no legal move"
        move = self.rng.choice(list(legal.moves))
        include = pb.Include(mover_view=True, view_seats=[self.seat])
        applied = self.stub.Apply(pb.ApplyRequest(state=self.ref(token), move=move, seat=self.seat,
                                                  per_seat_events=True, include=include))
        assert not applied.HasField("state"), "a seat received the full state"
        assert not applied.events, "a seat received unfiltered events"
        assert all(view.seat == self.seat for view in applied.views), "another seat's view"
        assert all(events.seat == self.seat for events in applied.seat_events)
        self.events_seen += sum(len(events.events) for events in applied.seat_events)
        return applied.token, applied.status

    def check_view(self, token, owner_view):
        """What the phone sees is exactly its seat's view, and no other seat's."""
        pb = self.pb
        mine = self.stub.Observe(pb.ObserveRequest(state=self.ref(token), seat=self.seat)).view
        assert mine.SerializeToString(deterministic=True) == owner_view.SerializeToString(deterministic=True)
        other = (self.seat + 1) % PHONES
        expect_refused(lambda: self.stub.Observe(pb.ObserveRequest(state=self.ref(token), seat=other)),
                       "PERMISSION_DENIED")


def expect_refused(call, *codes):
    import grpc
    try:
        call()
    except grpc.RpcError as error:
        assert error.code().name in codes, f"{error.code().name} not in {codes}: {error.details()}"
        return
    raise AssertionError(f"a call that must be refused ({codes}) was answered")


class Eavesdropper:
    """Sees every token that passes, holds no capability of this table."""

    def __init__(self, stub, pb, foreign_capability):
        self.stub, self.pb, self.foreign = stub, pb, foreign_capability

    def try_everything(self, token, seat_view_bytes):
        pb = self.pb
        if len(seat_view_bytes) >= 8:
            assert seat_view_bytes not in token, "the token shows a seat's view in the clear"
        for capability in (b"", self.foreign):
            ref = pb.StateRef(sealed=pb.SealedState(token=token, seat_capability=capability))
            for seat in range(PHONES):
                expect_refused(lambda: self.stub.Observe(pb.ObserveRequest(state=ref, seat=seat)),
                               "UNAUTHENTICATED")
                expect_refused(lambda: self.stub.LegalMoves(pb.LegalMovesRequest(state=ref, seat=seat)),
                               "UNAUTHENTICATED")
            expect_refused(lambda: self.stub.Apply(pb.ApplyRequest(state=ref, move=pb.Move(id=0))),
                           "UNAUTHENTICATED")


def play(stub, pb, game, seed):
    table = stub.NewGame(pb.NewGameRequest(game=game, players=PHONES, seed=seed, seal=True)).sealed
    assert len(table.seat_capabilities) >= PHONES
    owner = table.owner_capability
    phones = [Phone(stub, pb, seat, table.seat_capabilities[seat], seed * 10 + seat)
              for seat in range(PHONES)]
    match = MatchService(table.token)
    # A capability of another table: valid in form, useless here.
    foreign = stub.NewGame(pb.NewGameRequest(game=game, players=PHONES, seed=seed + 1,
                                             seal=True)).sealed.seat_capabilities[0]
    eavesdropper = Eavesdropper(stub, pb, foreign)
    owner_ref = lambda token: pb.StateRef(sealed=pb.SealedState(token=token, seat_capability=owner))
    rng = random.Random(seed)
    status = stub.Observe(pb.ObserveRequest(state=owner_ref(match.token), seat=0)).status
    replay_checked = False
    while not status.finished:
        token = match.token
        mover = status.to_move
        if status.results[mover].automaton:  # played by the rules; the backend moves for it
            legal = stub.LegalMoves(pb.LegalMovesRequest(state=owner_ref(token), seat=mover)).moves
            applied = stub.Apply(pb.ApplyRequest(state=owner_ref(token), move=rng.choice(list(legal))))
            new_token, status = applied.token, applied.status
        else:
            phone = phones[mover]
            owner_view = stub.Observe(pb.ObserveRequest(state=owner_ref(token), seat=mover)).view
            phone.check_view(token, owner_view)
            new_token, status = phone.take_turn(token)
        assert match.submit(new_token), "a fresh token was refused"
        if not status.results[mover].automaton and not replay_checked:
            # The phone sends its previous token again to try another move: the stateless
            # engine answers, the match service refuses the result.
            retry, _ = phones[mover].take_turn(token)
            assert read_header(retry)["move_number"] == match.header["move_number"]
            assert not match.submit(retry), "the match service took a replayed token"
            replay_checked = True
        if match.header["move_number"] % 7 == 1:
            seat_zero = stub.Observe(pb.ObserveRequest(state=owner_ref(match.token), seat=0))
            eavesdropper.try_everything(match.token, seat_zero.view.view.value)
    results = ", ".join(f"seat {r.seat}: {r.score:g} (rank {r.rank})" for r in status.results)
    print(f"{game}: {match.header['move_number']} moves by {PHONES} phones; {results}")
    assert min(r.rank for r in status.results) == 1
    assert all(phone.events_seen > 0 for phone in phones)
    assert replay_checked


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True, help="path of gavel-engine to start")
    parser.add_argument("--proto", default=os.path.join(os.path.dirname(__file__), "../../proto"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        generate_stubs(os.path.abspath(args.proto), work)
        import grpc
        from gavel.v1 import engine_pb2, engine_pb2_grpc
        server, address = start_server(args.engine, os.path.join(work, "sealing.keys"))
        try:
            stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
            games = [info.name for info in stub.ListGames(engine_pb2.ListGamesRequest()).games]
            for game in games:
                play(stub, engine_pb2, game, args.seed)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{len(games)} games played to the end by sealed phones")


if __name__ == "__main__":
    main()
