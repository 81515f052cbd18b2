// A misbehaving bot for the arena tests, built on the shared bot client.
//
//   faulty_bot --arena=host:port --name=NAME --fault=hang|illegal|disconnect|fail
//
// hang: never answers (and stops reading); illegal: answers with a move id that is never
// legal; disconnect: answers three turns, then exits in the middle of the fourth; fail: its
// policy returns an error at every turn (the client reports it to the arena).
#include <cstdlib>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bots/client/bot_client.h"
#include "tests/support/test_games.h"

ABSL_FLAG(std::string, arena, "", "the arena's gRPC target");
ABSL_FLAG(std::string, name, "faulty", "bot name");
ABSL_FLAG(std::string, fault, "hang", "hang, illegal, disconnect or fail");

namespace {

gavel::policy::Policy FaultyPolicy(std::string fault) {
  return [fault = std::move(fault), turns = 0](const gavel::policy::Turn& turn) mutable
         -> absl::StatusOr<gavel::Move> {
    if (fault == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (fault == "disconnect" && ++turns > 3) std::_Exit(0);
    if (fault == "illegal") return gavel::Move{0xFFFFFFFFu};
    if (fault == "fail") return absl::InternalError("this policy cannot choose");
    return turn.legal().front();
  };
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  gavel::bots::BotOptions options;
  options.games = {gavel::testing::TestGame().name()};
  options.arena = absl::GetFlag(FLAGS_arena);
  options.name = absl::GetFlag(FLAGS_name);
  gavel::bots::BotClient client(options, FaultyPolicy(absl::GetFlag(FLAGS_fault)));
  client.Run();
  return 0;
}
