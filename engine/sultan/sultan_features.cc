// Learning features for Sultan, computed from a seat's view only.
#include <algorithm>

#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/sultan/sultan.h"
#include "gavel/v1/sultan.pb.h"

namespace gavel::sultan {
namespace {

std::array<float, kColours> JewelArray(const v1::JewelCounts& counts) {
  return {static_cast<float>(counts.white()), static_cast<float>(counts.red()),
          static_cast<float>(counts.yellow()), static_cast<float>(counts.green()),
          static_cast<float>(counts.blue())};
}

// The highest revealed-to-the-viewer card on each cushion, and how many cards lie there.
struct CushionBids {
  std::array<int, 3> best_known{};
  std::array<int, 3> count{};
  std::array<bool, 3> own{};
};

CushionBids SummarizeBids(const v1::SultanView& view) {
  CushionBids summary;
  for (const auto& bid : view.bids()) {
    const int cushion = static_cast<int>(std::min<uint32_t>(bid.cushion(), 2));
    summary.best_known[cushion] = std::max<int>(summary.best_known[cushion], bid.value());
    ++summary.count[cushion];
    summary.own[cushion] = summary.own[cushion] || bid.seat() == view.seat();
  }
  return summary;
}

}  // namespace

// Observation layout (kObservationSize floats):
//   players one-hot (4), phase (2), progress (1), bag (5), drawn (5),
//   per cushion: present + colour one-hot (3 x 6), own hand per value (15),
//   per seat relative to the viewer (5 x 9), per cushion bids (3 x 3).
inline constexpr int kObservationSize = 4 + 2 + 1 + 5 + 5 + 18 + 15 + 45 + 9;
// Move layout: return flag, returned colour (5), bid flag, value, cushion colour (5),
// cushion points, best known bid, cards there, own card there, beats best known,
// share of own hand below the value.
inline constexpr int kMoveSize = 1 + 5 + 1 + 1 + 5 + 1 + 1 + 1 + 1 + 1 + 1;

absl::Status FeaturizeSultan(const v1::View& view_proto, std::span<const Move> moves,
                             Features* out) {
  PooledScratch<v1::SultanView> scratch;  // reused: no allocation per decision
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(view_proto.view(), "the sultan view"));
  const v1::SultanView& view = *scratch;
  const int players = static_cast<int>(view.players());
  if (players < 2 || players > 5 || view.seats_size() != players || view.seat() < 0 ||
      view.seat() >= players)
    return absl::InvalidArgumentError("sultan: the view is malformed");
  const Params params = ParamsFor(players);
  const int viewer = view.seat();
  std::vector<float>& obs = out->observation;
  obs.assign(kObservationSize, 0.f);
  size_t at = 0;
  obs[at + players - 2] = 1;
  at += 4;
  obs[at + (view.phase() == v1::SULTAN_PHASE_BID ? 1 : 0)] = 1;
  at += 2;
  obs[at++] = static_cast<float>(view.pass() * params.rounds_per_pass + view.round()) /
              static_cast<float>(kPasses * params.rounds_per_pass);
  for (float count : JewelArray(view.bag())) obs[at++] = count / 12.f;
  for (float count : JewelArray(view.drawn())) obs[at++] = count / 4.f;
  for (int cushion = 0; cushion < 3; ++cushion, at += 6) {
    if (cushion >= view.cushions_size()) continue;
    obs[at] = 1;
    obs[at + 1 + std::clamp(view.cushions(cushion) - 1, 0, 4)] = 1;
  }
  std::array<int, kMaxCard + 1> hand{};
  for (uint32_t value : view.seats(viewer).hand()) ++hand[std::min<uint32_t>(value, kMaxCard)];
  for (int value = 1; value <= kMaxCard; ++value)
    obs[at++] = static_cast<float>(hand[value]) / static_cast<float>(params.copies);
  for (int offset = 0; offset < 5; ++offset, at += 9) {
    if (offset >= players) continue;
    const int seat = (viewer + offset) % players;
    const auto& shown = view.seats(seat);
    obs[at] = 1;
    const auto collection = JewelArray(shown.collection());
    for (int colour = 0; colour < kColours; ++colour) obs[at + 1 + colour] = collection[colour] / 8.f;
    obs[at + 6] = static_cast<float>(shown.score()) / 100.f;
    obs[at + 7] = static_cast<float>(shown.hand_count()) / static_cast<float>(params.hand_size);
    obs[at + 8] = seat == view.start_player() ? 1.f : 0.f;
  }
  const CushionBids bids = SummarizeBids(view);
  for (int cushion = 0; cushion < 3; ++cushion) {
    obs[at++] = static_cast<float>(bids.best_known[cushion]) / kMaxCard;
    obs[at++] = static_cast<float>(bids.count[cushion]) / 5.f;
    obs[at++] = bids.own[cushion] ? 1.f : 0.f;
  }

  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  int hand_total = 0;
  for (int value = 1; value <= kMaxCard; ++value) hand_total += hand[value];
  for (size_t i = 0; i < moves.size(); ++i) {
    float* f = out->moves.data() + i * kMoveSize;
    const Move move = moves[i];
    if (!IsBid(move)) {
      f[0] = 1;
      f[1 + std::min<uint32_t>(move.id, 4)] = 1;
      continue;
    }
    const int value = BidValue(move), cushion = std::min(BidCushion(move), 2);
    f[6] = 1;
    f[7] = static_cast<float>(value) / kMaxCard;
    if (cushion < view.cushions_size()) {
      const int colour = std::clamp(view.cushions(cushion) - 1, 0, 4);
      f[8 + colour] = 1;
      f[13] = static_cast<float>(colour + 1) / 5.f;
    }
    f[14] = static_cast<float>(bids.best_known[cushion]) / kMaxCard;
    f[15] = static_cast<float>(bids.count[cushion]) / 5.f;
    f[16] = bids.own[cushion] ? 1.f : 0.f;
    f[17] = value > bids.best_known[cushion] ? 1.f : 0.f;
    int below = 0;
    for (int v = 1; v < std::min(value, kMaxCard + 1); ++v) below += hand[v];
    f[18] = hand_total > 0 ? static_cast<float>(below) / static_cast<float>(hand_total) : 0.f;
  }
  return absl::OkStatus();
}

}  // namespace gavel::sultan
