"""A Python policy as an arena bot, in a few lines:

    import gavel.arena_bot

    def first_move(view, legal):       # view: gavel.v1.View; legal: [gavel.v1.Move]
        return legal[0].id

    gavel.arena_bot.run(first_move, name="first", games=["sultan"], arena="127.0.0.1:50061")

`run` connects (TLS with `tls=True` or `tls_ca=path`; an account token from `token_file`),
answers every turn with the policy's move id, and reconnects with a backoff when the stream
ends; it returns when the arena refuses the bot for good (a bad token, another account's
name, or a newer connection of the account) or on KeyboardInterrupt.
"""
import queue
import time

import grpc

from .v1 import arena_pb2, arena_pb2_grpc

FINAL = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.ABORTED}


def _channel(arena, tls, tls_ca):
    if not (tls or tls_ca):
        return grpc.insecure_channel(arena)
    roots = open(tls_ca, "rb").read() if tls_ca else None
    return grpc.secure_channel(arena, grpc.ssl_channel_credentials(root_certificates=roots))


def _play_once(stub, policy, hello, metadata):
    outbox = queue.Queue()

    def upstream():
        yield arena_pb2.BotMessage(hello=hello)
        while (message := outbox.get()) is not None:
            yield message

    call = stub.Play(upstream(), wait_for_ready=True, metadata=metadata)
    try:
        for message in call:
            if message.WhichOneof("kind") == "turn":
                turn = message.turn
                move = policy(turn.view, list(turn.legal_moves))
                outbox.put(arena_pb2.BotMessage(move=arena_pb2.MoveReply(request_id=turn.request_id,
                                                                         move_id=int(move))))
    finally:
        outbox.put(None)


def run(policy, name, games, arena="127.0.0.1:50061", token_file=None, tls=False, tls_ca=None,
        version="python"):
    token = open(token_file).read().strip() if token_file else ""
    metadata = [("authorization", "Bearer " + token)] if token else []
    stub = arena_pb2_grpc.ArenaStub(_channel(arena, tls, tls_ca))
    hello = arena_pb2.Hello(name=name, version=version, games=list(games))
    backoff = 0.1
    while True:
        try:
            _play_once(stub, policy, hello, metadata)
            backoff = 0.1
        except grpc.RpcError as error:
            if error.code() in FINAL:
                raise
        time.sleep(backoff)  # a backoff before reconnecting, not a wait for readiness
        backoff = min(2 * backoff, 5.0)
