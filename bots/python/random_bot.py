#!/usr/bin/python3
"""A random bot for the gavel arena, written from proto/gavel/v1/arena.proto alone.

It generates the Python stubs with protoc and grpc_python_plugin at start-up (Debian's
python3-grpcio), connects to the arena, says hello, answers every turn with a uniformly
random legal move from a seeded generator, and reconnects with a backoff when the stream
ends. SIGTERM or SIGINT ends it.

    /usr/bin/python3 bots/python/random_bot.py --arena 127.0.0.1:50061 --name py-random \\
        --games sultan,carat

Beyond loopback, pass --tls (the system's roots) or --tls-ca ca.pem, and the bot account's
token with --token-file (sent as `authorization: Bearer <token>`).
"""
import argparse
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading

PROTOS = ["gavel/v1/engine.proto", "gavel/v1/arena.proto"]


def generate_stubs(proto_dir, out_dir):
    subprocess.run(["protoc", "-I", proto_dir, f"--python_out={out_dir}",
                    f"--grpc_out={out_dir}",
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"] + PROTOS, check=True)
    sys.path.insert(0, out_dir)


# Refusals that reconnecting cannot cure: a bad token, another account's name, or a newer
# connection of the same account that took this one's place.
FINAL = set()


def make_channel(grpc, args):
    FINAL.update({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                  grpc.StatusCode.ABORTED})
    if not (args.tls or args.tls_ca):
        return grpc.insecure_channel(args.arena)
    roots = open(args.tls_ca, "rb").read() if args.tls_ca else None
    return grpc.secure_channel(args.arena, grpc.ssl_channel_credentials(root_certificates=roots))


def is_loopback(target):
    host = target.rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


class RandomBot:
    def __init__(self, args):
        import grpc
        from gavel.v1 import arena_pb2, arena_pb2_grpc
        self.grpc, self.pb = grpc, arena_pb2
        self.args = args
        self.rng = random.Random(args.seed)
        self.stub = arena_pb2_grpc.ArenaStub(make_channel(grpc, args))
        self.metadata = [("authorization", "Bearer " + args.token)] if args.token else []
        self.stopped = threading.Event()
        self.call = None
        self.turns = 0
        self.failed = False

    def messages(self, outbox):
        """The upstream: the hello, then every queued reply; None ends it."""
        yield self.pb.BotMessage(hello=self.pb.Hello(
            name=self.args.name, version="python-1", games=self.args.games.split(",")))
        while True:
            message = outbox.get()
            if message is None:
                return
            yield message

    def play_once(self):
        outbox = queue.Queue()
        self.call = self.stub.Play(self.messages(outbox), wait_for_ready=True,
                                   metadata=self.metadata)
        try:
            for message in self.call:
                kind = message.WhichOneof("kind")
                if kind == "turn":
                    move = self.rng.choice(message.turn.legal_moves)
                    outbox.put(self.pb.BotMessage(move=self.pb.MoveReply(
                        request_id=message.turn.request_id, move_id=move.id)))
                    self.turns += 1
                elif kind == "result":
                    r = message.result
                    print(f"{self.args.name}: match {r.match_id} ({r.game}) over", file=sys.stderr)
        finally:
            outbox.put(None)

    def run(self):
        backoff = 0.1
        while not self.stopped.is_set():
            try:
                self.play_once()
            except self.grpc.RpcError as error:
                if self.stopped.is_set():
                    break
                if error.code() in FINAL:
                    print(f"{self.args.name}: refused ({error.code()}: {error.details()}); "
                          "not reconnecting", file=sys.stderr)
                    self.failed = True
                    break
                print(f"{self.args.name}: stream ended ({error.code()}); retrying in {backoff:.1f} s",
                      file=sys.stderr)
            self.stopped.wait(backoff)
            backoff = min(backoff * 2, 5.0)

    def stop(self, *_):
        self.stopped.set()
        if self.call is not None:
            self.call.cancel()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--arena", default="127.0.0.1:50061")
    parser.add_argument("--name", default="py-random")
    parser.add_argument("--games", default="sultan", help="comma-separated games to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--proto", default=os.path.join(here, "..", "..", "proto"))
    parser.add_argument("--tls", action="store_true", help="TLS, trusting the system's roots")
    parser.add_argument("--tls-ca", help="TLS, trusting this PEM CA")
    parser.add_argument("--token-file", help="the bot account's token")
    parser.add_argument("--insecure", action="store_true",
                        help="allow sending the token in plaintext beyond loopback")
    args = parser.parse_args()
    args.token = open(args.token_file).read().strip() if args.token_file else ""
    if args.token and not (args.tls or args.tls_ca or args.insecure or is_loopback(args.arena)):
        parser.error(f"refusing to send the token in plaintext to {args.arena}: use --tls or --tls-ca")
    with tempfile.TemporaryDirectory() as out_dir:
        generate_stubs(args.proto, out_dir)
        bot = RandomBot(args)
        signal.signal(signal.SIGTERM, bot.stop)
        signal.signal(signal.SIGINT, bot.stop)
        worker = threading.Thread(target=bot.run)
        worker.start()
        while worker.is_alive():
            worker.join(0.2)  # keeps the main thread free for signal handlers
        print(f"{args.name}: stopped after {bot.turns} turns", file=sys.stderr)
    sys.exit(1 if bot.failed else 0)


if __name__ == "__main__":
    main()
