// A misbehaving bot for the arena tests, built on the shared bot client.
//
//   faulty_bot --arena=host:port --name=NAME --fault=hang|illegal|disconnect
//
// hang: never answers (and stops reading); illegal: answers with a move id that is never
// legal; disconnect: answers three turns, then exits in the middle of the fourth.
#include <cstdlib>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bots/client/bot_client.h"
#include "tests/support/test_games.h"

ABSL_FLAG(std::string, arena, "", "the arena's gRPC target");
ABSL_FLAG(std::string, name, "faulty", "bot name");
ABSL_FLAG(std::string, fault, "hang", "hang, illegal or disconnect");

namespace {

class FaultyPolicy final : public gavel::bots::Policy {
 public:
  explicit FaultyPolicy(std::string fault) : fault_(std::move(fault)) {}
  std::vector<std::string> Games() const override { return {gavel::testing::TestGame().name()}; }
  uint32_t Choose(const gavel::v1::View&, const gavel::bots::LegalMoves& legal) override {
    if (fault_ == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (fault_ == "disconnect" && ++turns_ > 3) std::_Exit(0);
    if (fault_ == "illegal") return 0xFFFFFFFFu;
    return legal.Get(0).id();
  }

 private:
  std::string fault_;
  int turns_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  FaultyPolicy policy(absl::GetFlag(FLAGS_fault));
  gavel::bots::BotOptions options;
  options.arena = absl::GetFlag(FLAGS_arena);
  options.name = absl::GetFlag(FLAGS_name);
  gavel::bots::BotClient client(options, policy);
  client.Run();
  return 0;
}
