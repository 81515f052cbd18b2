"""`import gavel`: the engine in-process from Python (run by ctest with PYTHONPATH set to
the build's python folder, GAVEL_ENGINE_BINARY to the engine server and GAVEL_WEIGHTS to the
repository's weights folder).

Every game played from Python ends with the same bytes as the engine service gives for the
same seed and moves, states cross between Python and the service both ways, bad input
raises, and the environments' arrays have the documented shapes and meaning.
"""
import os
import random
import subprocess
import unittest

import numpy as np

import gavel
from gavel.v1 import engine_pb2, engine_pb2_grpc
from gavel.v1 import carat_pb2, mercado_pb2, moonlight_market_pb2, morgenland_pb2, sultan_pb2  # noqa: F401 (view types)
from google.protobuf import symbol_database


def play_random(name, players, seed, moves_seed):
    state = gavel.new_game(name, players, seed)
    rng = random.Random(moves_seed)
    history = []
    while not state.finished:
        move = rng.choice(state.legal_moves())
        history.append(move)
        state.apply(move)
    return state, history


class EngineServer:
    """The gavel-engine binary on a loopback port (its readiness line, no sleeping)."""

    def __enter__(self):
        import grpc
        self.process = subprocess.Popen([os.environ["GAVEL_ENGINE_BINARY"], "--listen=127.0.0.1:0",
                                         "--log_level=warn"], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("listening on port "), line
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line.split()[-1]}")
        return engine_pb2_grpc.EngineStub(self.channel)

    def __exit__(self, *_):
        self.channel.close()
        self.process.terminate()
        self.process.wait()
        self.process.stdout.close()


class ModuleTest(unittest.TestCase):
    def test_games_and_their_info(self):
        names = gavel.games()
        self.assertGreater(len(names), 0)
        for name in names:
            info = gavel.game_info(name)
            self.assertEqual(info["name"], name)
            self.assertLessEqual(info["min_players"], info["max_players"])

    def test_same_bytes_as_the_service_and_states_cross_both_ways(self):
        with EngineServer() as engine:
            for name in gavel.games():
                info = gavel.game_info(name)
                players = info["min_players"]
                state, history = play_random(name, players, seed=11, moves_seed=5)
                response = engine.NewGame(engine_pb2.NewGameRequest(game=name, players=players, seed=11))
                wire = response.state
                for move in history:
                    applied = engine.Apply(engine_pb2.ApplyRequest(
                        state=engine_pb2.StateRef(full=wire), move=engine_pb2.Move(id=move)))
                    wire = applied.state
                self.assertEqual(wire.SerializeToString(deterministic=True), state.serialize(), name)
                # A state serialized in Python goes on in the service, and back.
                middle = gavel.new_game(name, players, 11)
                for move in history[: len(history) // 2]:
                    middle.apply(move)
                proto = engine_pb2.GameState.FromString(middle.serialize())
                legal = engine.LegalMoves(engine_pb2.LegalMovesRequest(state=engine_pb2.StateRef(full=proto),
                                                                       seat=middle.to_move))
                self.assertEqual([m.id for m in legal.moves], middle.legal_moves(), name)
                back = gavel.deserialize(proto.SerializeToString())
                self.assertEqual(back.serialize(), middle.serialize(), name)

    def test_views_features_and_resampling(self):
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            state = gavel.new_game(name, players, 3)
            seat = state.to_move
            view = engine_pb2.View.FromString(state.observe(seat))
            self.assertEqual(view.game, name)
            self.assertEqual(view.seat, seat)
            self.assertEqual(state.observe_dict(seat)["seat"], seat)
            self.assertEqual(engine_pb2.View.FromString(state.observe(-1)).seat, -1)
            observation, moves = state.features(seat)
            self.assertEqual(observation.dtype, np.float32)
            self.assertEqual(moves.shape[0], len(state.legal_moves()))
            resampled = gavel.resample(state.observe(seat), 99)
            self.assertEqual(resampled.observe(seat), state.observe(seat))
            self.assertEqual(resampled.legal_moves(), state.legal_moves())

    def test_views_read_alike_by_pythons_protobuf(self):
        # The engine writes some views' fields out of protobuf's order (Morgenland's seats and
        # unit lists after the rest); Python's protobuf must read them, and its own encoding of
        # what it read must describe the same table to the engine.
        for name in gavel.games():
            state = gavel.new_game(name, gavel.game_info(name)["max_players"], 5)
            rng = random.Random(5)
            for _ in range(30):
                if state.finished:
                    break
                state.apply(rng.choice(state.legal_moves()))
            seat = state.to_move
            view = engine_pb2.View.FromString(state.observe(seat))
            game_view = symbol_database.Default().GetSymbol(view.view.TypeName())()
            self.assertTrue(view.view.Unpack(game_view), name)
            view.view.Pack(game_view)  # Python's own encoding
            resampled = gavel.resample(view.SerializeToString(), 7)
            self.assertEqual(resampled.observe(seat), state.observe(seat), name)

    def test_bad_input_raises_and_changes_nothing(self):
        name = gavel.games()[0]
        players = gavel.game_info(name)["min_players"]
        with self.assertRaises(KeyError):
            gavel.new_game("chess", 2, 1)
        with self.assertRaises(ValueError):
            gavel.new_game(name, 99, 1)
        with self.assertRaises(ValueError):
            gavel.new_game(name, players, 1, {"no_such_option": "x"})
        state = gavel.new_game(name, players, 1)
        before = state.serialize()
        illegal = max(state.legal_moves()) + 100000
        with self.assertRaises(ValueError):
            state.apply(illegal)
        self.assertEqual(state.serialize(), before)
        for garbage in [b"", b"\x00\xff\x13garbage", b"\x12\x03abc", before[: len(before) // 2]]:
            with self.assertRaises(ValueError):
                gavel.deserialize(garbage)
            with self.assertRaises(ValueError):
                gavel.resample(garbage, 1)
        with self.assertRaises(ValueError):
            state.observe(99)
        with self.assertRaises(ValueError):
            state.features(-5)
        with self.assertRaises(ValueError):
            gavel.resample(b"\x01\x02", 1)
        foreign = engine_pb2.View.FromString(state.observe(0))
        foreign.game = "chess"
        with self.assertRaises(KeyError):
            gavel.resample(foreign.SerializeToString(), 1)
        with self.assertRaises(TypeError):
            state.apply("a move")

    def test_dirk_plays_legal_moves(self):
        for name in gavel.games():
            state = gavel.new_game(name, gavel.game_info(name)["min_players"], 5)
            for _ in range(20):
                if state.finished:
                    break
                move = state.dirk_move()
                self.assertIn(move, state.legal_moves(), name)
                state.apply(move)

    def test_a_finished_table_refuses_moves(self):
        state, _ = play_random(gavel.games()[0], gavel.game_info(gavel.games()[0])["min_players"], 2, 2)
        scores, ranks = state.outcome()
        self.assertIn(1, ranks)
        with self.assertRaises(RuntimeError):
            state.apply(0)


class BotsTest(unittest.TestCase):
    """ISMCTS, the learned bot and the search bot as baselines from Python: legal moves from
    the mover's view alone, reproducible from a seed, clear errors."""

    @classmethod
    def setUpClass(cls):
        cls.bot = gavel.LearnedBot(os.environ["GAVEL_WEIGHTS"])

    def mid_game(self, name, moves=12):
        state, rng = gavel.new_game(name, gavel.game_info(name)["max_players"], 5), random.Random(5)
        for _ in range(moves):
            if state.finished:
                break
            state.apply(rng.choice(state.legal_moves()))
        return state

    def test_every_game_has_a_network_at_its_largest_table(self):
        self.assertEqual(sorted(self.bot.games()), sorted(gavel.games()))
        for name in gavel.games():
            self.assertTrue(self.bot.has_network(self.mid_game(name)), name)

    def test_moves_are_legal_and_reproducible(self):
        for name in gavel.games():
            state = self.mid_game(name)
            legal = state.legal_moves()
            self.assertIn(state.ismcts_move(iterations=30, seed=3), legal, name)
            self.assertEqual(state.ismcts_move(30, 3), state.ismcts_move(30, 3), name)
            self.assertIn(self.bot.move(state), legal, name)
            self.assertEqual(self.bot.move(state), self.bot.move(state), name)
            self.assertIn(self.bot.search_move(state, time_ms=2, seed=3), legal, name)
            self.assertEqual(self.bot.search_move(state, seed=3, iterations=20),
                             self.bot.search_move(state, seed=3, iterations=20), name)

    def test_the_bots_see_only_the_movers_view(self):
        # Another table with the same view for the mover (its hidden parts drawn again) gets
        # the same answers: nothing the mover may not see reaches the bots.
        for name in gavel.games():
            state = self.mid_game(name)
            view = state.observe(state.to_move)
            for seed in (1, 2):
                other = gavel.resample(view, seed)
                self.assertEqual(other.observe(other.to_move), view, name)
                self.assertEqual(other.ismcts_move(30, 7), state.ismcts_move(30, 7), name)
                self.assertEqual(self.bot.move(other), self.bot.move(state), name)
                self.assertEqual(self.bot.search_move(other, seed=7, iterations=20),
                                 self.bot.search_move(state, seed=7, iterations=20), name)

    def test_the_learned_bot_plays_a_whole_game(self):
        name = gavel.games()[0]
        state = gavel.new_game(name, gavel.game_info(name)["min_players"], 11)
        while not state.finished:
            state.apply(self.bot.move(state))
        self.assertIn(1, state.outcome()[1])

    def test_bad_input_raises(self):
        name = gavel.games()[0]
        state = self.mid_game(name)
        with self.assertRaises(ValueError):
            state.ismcts_move(iterations=0)
        with self.assertRaises(ValueError):
            self.bot.search_move(state, time_ms=0)
        with self.assertRaises(ValueError):
            self.bot.search_move(state, iterations=-1)
        with self.assertRaises(FileNotFoundError):
            gavel.LearnedBot("/nonexistent/weights")
        finished, _ = play_random(name, gavel.game_info(name)["min_players"], 2, 2)
        for move in (lambda: finished.ismcts_move(), lambda: self.bot.move(finished),
                     lambda: self.bot.search_move(finished)):
            with self.assertRaises(RuntimeError):
                move()


class EnvironmentTest(unittest.TestCase):
    def test_the_aec_environment_plays_whole_games(self):
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            env = gavel.AecEnv(name, players, seed=4)
            rng = random.Random(1)
            steps = 0
            while True:
                observation, reward, done, truncated, info = env.last()
                if done:
                    break
                self.assertEqual(env.action_mask().sum(), len(info["moves"]))
                env.step(rng.randrange(len(info["moves"])))
                steps += 1
            self.assertGreater(steps, 0)
            self.assertEqual(max(env.rewards.values()), 1.0, name)
            self.assertTrue(all(env.terminations.values()))

    def test_the_vector_environment(self):
        name = gavel.games()[0]
        players = gavel.game_info(name)["min_players"]
        env = gavel.VectorEnv(name, players, num_envs=16, seed=7)
        to_move, mask = env.observe()
        self.assertEqual(to_move.shape, (16,))
        self.assertEqual(mask.shape, (16, env.max_actions))
        self.assertEqual(mask.dtype, np.bool_)
        rng = np.random.default_rng(3)
        finished = 0
        for _ in range(3000):
            counts = mask.sum(axis=1)
            self.assertTrue((counts > 0).all())
            actions = (rng.random(16) * counts).astype(np.int64)
            reward, done, to_move, mask = env.step(actions)
            self.assertEqual(reward.shape, (16, env.seats))
            self.assertEqual(reward.dtype, np.float32)
            self.assertTrue((reward[~done] == 0).all())
            for row in reward[done]:
                self.assertAlmostEqual(row.max(), 1.0)  # the winner's reward
                self.assertTrue(((row >= 0) & (row <= 1)).all())
            finished += int(done.sum())
        self.assertGreater(finished, 0, "no table finished (and restarted)")
        observations = env.observations()
        self.assertEqual(observations.shape[0], 16)
        self.assertEqual(observations.dtype, np.float32)
        with self.assertRaises(ValueError):
            env.step(np.full(16, 10**6))
        with self.assertRaises(ValueError):
            env.step(np.zeros(3))
        for threads in [0, -1, 257]:
            with self.assertRaises(ValueError):
                gavel.VectorEnv(name, players, num_envs=4, threads=threads)

    def test_the_vector_environments_observations_are_each_movers_features(self):
        # (threads, tables): one thread; three and two sharing the tables unevenly; more threads
        # than tables (one a table).
        for name in gavel.games():
            for threads, num_envs in [(1, 4), (3, 4), (2, 5), (8, 2)]:
                self.check_observations(name, threads, num_envs)

    def test_the_vector_environment_steps_alike_on_any_number_of_threads(self):
        # Seven tables: on three threads two, two and three each; the restarted tables take
        # their seeds in table order whatever thread played them.
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            envs = [gavel.VectorEnv(name, players, num_envs=7, seed=5, threads=threads) for threads in (1, 3)]
            self.assertEqual([env.threads for env in envs], [1, 3])
            rng = np.random.default_rng(8)
            outputs = [env.observe() for env in envs]
            finished, steps = 0, 0
            while finished < 10:
                steps += 1
                self.assertLess(steps, 10000, f"{name}: ten tables never finished")
                for mine, theirs in zip(*outputs):
                    np.testing.assert_array_equal(mine, theirs, name)
                np.testing.assert_array_equal(envs[0].observations(), envs[1].observations(), name)
                actions = (rng.random(7) * outputs[0][-1].sum(axis=1)).astype(np.int64)
                outputs = [env.step(actions) for env in envs]
                finished += int(outputs[0][1].sum())

    def test_reset_starts_every_table_again_from_its_seed(self):
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            env = gavel.VectorEnv(name, players, num_envs=3, seed=1, threads=2)
            zeros = np.zeros(3, dtype=np.int64)
            for _ in range(5):
                env.step(zeros)
            fresh = gavel.VectorEnv(name, players, num_envs=3, seed=40)
            turns = [env.reset(seed=40), fresh.observe()]
            for _ in range(3):
                for mine, theirs in zip(*turns):
                    np.testing.assert_array_equal(mine, theirs, name)
                np.testing.assert_array_equal(env.observations(), fresh.observations(), name)
                turns = [env.step(zeros), fresh.step(zeros)]
            env.reset()  # from the next seeds: 43, 44, 45
            later = gavel.VectorEnv(name, players, num_envs=3, seed=43)
            np.testing.assert_array_equal(env.observations(), later.observations(), name)

    def test_bot_actions_are_the_bots_moves_as_indexes(self):
        # Dirk's choice for each table is what state.dirk_move() plays on a copy of the table.
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            for threads in (1, 3):
                env = gavel.VectorEnv(name, players, num_envs=5, seed=11, threads=threads)
                tables = [gavel.new_game(name, players, 11 + i) for i in range(5)]
                for _ in range(15):
                    actions = env.bot_actions("dirk")
                    expected = [table.legal_moves().index(table.dirk_move()) for table in tables]
                    self.assertEqual(actions.tolist(), expected, (name, threads))
                    _, done, _, _ = env.step(actions)
                    if done.any():
                        break
                    for table, action in zip(tables, actions):
                        table.apply(table.legal_moves()[action])

    def test_bot_actions_of_drawing_bots_depend_on_the_seed_not_the_threads(self):
        weights = os.environ["GAVEL_WEIGHTS"]
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            envs = [gavel.VectorEnv(name, players, num_envs=6, seed=2, threads=threads) for threads in (1, 3)]
            bots = ["random", "ismcts:8/6", f"learned:{weights}/{name}-{players}p.gmlp"]
            seeds_differ = False
            for _ in range(8):
                _, mask = envs[0].observe()
                for bot in bots:
                    alone, shared = (env.bot_actions(bot, seed=4) for env in envs)
                    np.testing.assert_array_equal(alone, shared, (name, bot))
                    self.assertTrue(((alone >= 0) & (alone < mask.sum(axis=1))).all(), (name, bot))
                actions = envs[0].bot_actions("random", seed=4)
                seeds_differ |= not np.array_equal(actions, envs[0].bot_actions("random", seed=5))
                for env in envs:
                    env.step(actions)
            self.assertTrue(seeds_differ, name)
        env = gavel.VectorEnv(gavel.games()[0], gavel.game_info(gavel.games()[0])["min_players"], num_envs=2)
        for bad in ["chess", "ismcts:0", "learned:/nonexistent.gmlp", ""]:
            with self.assertRaises(ValueError, msg=bad):
                env.bot_actions(bad)
        self.assertEqual(env.bot_actions("dirk").shape, (2,))  # still answers after bad names

    def test_a_bots_error_on_the_worker_threads_is_raised_and_changes_nothing(self):
        # A network trained for another table size refuses each table inside the shares; the
        # call raises that error (not a choice of zeros) on any number of threads.
        weights = os.environ["GAVEL_WEIGHTS"]
        for name in gavel.games():
            players = gavel.game_info(name)["min_players"]
            wrong = f"learned:{weights}/{name}-{players}p.gmlp"
            for threads in (1, 3):
                env = gavel.VectorEnv(name, players + 1, num_envs=5, seed=8, threads=threads)
                before = env.observations()
                with self.assertRaisesRegex(RuntimeError, f"trained for {players} players", msg=(name, threads)):
                    env.bot_actions(wrong)
                np.testing.assert_array_equal(env.observations(), before, name)
                self.assertEqual(env.bot_actions("dirk").shape, (5,))

    def test_python_threads_sharing_a_vector_environment_take_turns(self):
        # Calls run without the GIL; unserialized, two threads stepping one environment
        # corrupted its tables. Stepped with action 0 only, any order of the calls ends where
        # as many steps on one thread end.
        import threading
        name = gavel.games()[-1]
        players = gavel.game_info(name)["max_players"]
        shared = gavel.VectorEnv(name, players, num_envs=256, seed=3, threads=2)
        zeros = np.zeros(256, dtype=np.int64)

        def play():
            for _ in range(60):
                shared.observe()
                shared.step(zeros)
                shared.observations()
        threads = [threading.Thread(target=play) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        alone = gavel.VectorEnv(name, players, num_envs=256, seed=3)
        for _ in range(180):
            alone.step(zeros)
        np.testing.assert_array_equal(shared.observations(), alone.observations())
        for mine, theirs in zip(shared.observe(), alone.observe()):
            np.testing.assert_array_equal(mine, theirs)

    def check_observations(self, name, threads, num_envs):
        with self.subTest(game=name, threads=threads, num_envs=num_envs):
            players = gavel.game_info(name)["min_players"]
            env = gavel.VectorEnv(name, players, num_envs=num_envs, seed=11, threads=threads)
            self.assertEqual(env.threads, min(threads, num_envs))
            tables = [gavel.new_game(name, players, 11 + i) for i in range(num_envs)]  # table i's seed
            rng = np.random.default_rng(5)
            _, mask = env.observe()
            for _ in range(20):
                expected = np.stack([table.features(table.to_move)[0] for table in tables])
                np.testing.assert_array_equal(env.observations(), expected, name)
                observations, move_features = env.observations(moves=True)
                np.testing.assert_array_equal(observations, expected, name)
                ids = env.legal_moves()
                widest = max(len(table.legal_moves()) for table in tables)
                self.assertEqual(move_features.shape[:2], (num_envs, widest))
                self.assertEqual(ids.shape, (num_envs, widest))
                for i, table in enumerate(tables):  # action k of table i is its k-th legal move
                    legal = table.legal_moves()
                    np.testing.assert_array_equal(move_features[i, :len(legal)], table.features(table.to_move)[1])
                    self.assertFalse(move_features[i, len(legal):].any())
                    self.assertEqual(ids[i, :len(legal)].tolist(), legal)
                    self.assertTrue((ids[i, len(legal):] == -1).all())
                actions = (rng.random(num_envs) * mask.sum(axis=1)).astype(np.int64)
                _, done, _, mask = env.step(actions)
                if done.any():
                    break  # a finished table starts again from the next seed
                for table, action in zip(tables, actions):
                    table.apply(table.legal_moves()[action])


class ArenaBotTest(unittest.TestCase):
    def test_a_python_policy_plays_a_tournament_in_a_few_lines(self):
        import threading
        import gavel.arena_bot
        game = gavel.games()[0]
        arena = subprocess.Popen([os.environ["GAVEL_ARENA_BINARY"], "--listen=127.0.0.1:0", "--db=:memory:",
                                  "--tournament", "--deals=1", f"--games={game}", "--wait_for_bots=2",
                                  "--exit_after_tournament", "--progress=false", "--log_level=warn"],
                                 stdout=subprocess.PIPE, text=True)
        try:
            line = arena.stdout.readline()
            self.assertTrue(line.startswith("listening on port "), line)
            address = f"127.0.0.1:{line.split()[-1]}"
            chosen = []

            def first_move(view, legal):
                chosen.append(view.game)
                return legal[0].id

            for name in ("first", "second"):
                threading.Thread(target=gavel.arena_bot.run, daemon=True,
                                 kwargs=dict(policy=first_move, name=name, games=[game], arena=address)).start()
            summary = arena.stdout.readline()
            self.assertIn("0 not finished", summary)
            self.assertGreater(len(chosen), 0)
            self.assertEqual(set(chosen), {game})
        finally:
            arena.terminate()
            arena.wait()
            arena.stdout.close()


if __name__ == "__main__":
    unittest.main()
