// Learning features for Moonlight Market, computed from a seat's view only.
#include <algorithm>
#include <array>
#include <vector>

#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_wire.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {
namespace {

// Observation layout (kObservationSize floats, seats padded to 5, relative to the viewer):
//   general (10): seat count one-hot (3), humans, phase (2), pass, round, seal supply,
//     viewer holds the coin;
//   own cards (27): hand (13), displaced card, cards under the pile (13);
//   per cushion (5 x 13): present, card there, own card there, per-colour gem value of the
//     column in play (5), doublers, hammers, seal tiles, worthless tiles, tile count;
//   per seat (5 x 22): present, automaton, seals, prestige, card at a cushion, displaced
//     card, chain values (5), chain sizes (5), eligible chains (5), tiles held.
constexpr int kCushionSize = 13;
constexpr int kSeatSize = 22;
constexpr int kObservationSize = 10 + 27 + kMaxParticipants * (kCushionSize + kSeatSize);
// Move layout: bid (card, moon cushion, displaces, column gem value, column tiles),
// hammer (discard, removed tile value, chain value lost), attach (tile value, chain value
// gained, discards a full chain, seal from it, makes the chain eligible), colour one-hot;
// then, for a bid, the column's make-up (gem value per colour, doublers, hammers, seals,
// worthless tiles) and the card at the cushion now: a bid's worth depends on how that
// column fits the bidder's chains, which the observation alone cannot tie to the move.
constexpr int kColumnSize = kColours + 4;
constexpr int kMoveSize = 1 + 5 + 1 + 3 + 1 + 5 + kColours + kColumnSize + 1;

std::vector<uint8_t> ChainTiles(const v1::MoonlightChain& chain) {
  std::vector<uint8_t> tiles;
  for (uint32_t tile : chain.tiles())
    if (tile < kTileKinds && tiles.size() < kChainLimit) tiles.push_back(static_cast<uint8_t>(tile));
  return tiles;
}

std::vector<uint8_t> ColumnInPlay(const v1::MoonlightView& view, int cushion) {
  std::vector<uint8_t> tiles;
  const auto& shown = view.cushions(cushion);
  if (view.round() >= static_cast<uint32_t>(shown.columns_size())) return tiles;
  for (uint32_t tile : shown.columns(static_cast<int>(view.round())).tiles())
    if (tile < kTileKinds) tiles.push_back(static_cast<uint8_t>(tile));
  return tiles;
}

int GemValue(const std::vector<uint8_t>& tiles) {
  int value = 0;
  for (uint8_t tile : tiles) value += Describe(tile).value;
  return value;
}

// A column's make-up (kColumnSize): gem value per colour, doublers, hammers, seals, worthless.
void ColumnFeatures(const std::vector<uint8_t>& column, float* f) {
  for (uint8_t tile : column) {
    const TileInfo info = Describe(tile);
    if (info.type == TileType::kSingle || info.type == TileType::kTwoGem)
      f[info.colour] += info.value / 10.f;
    if (info.type == TileType::kTwoGem) f[info.second] += info.value / 10.f;
    f[kColours] += info.type == TileType::kDoubler;
    f[kColours + 1] += info.type == TileType::kHammer;
    f[kColours + 2] += info.type == TileType::kSeal;
    f[kColours + 3] += info.type == TileType::kWorthless;
  }
}

void CushionFeatures(const v1::MoonlightView& view, int cushion, float* f) {
  const auto& shown = view.cushions(cushion);
  f[0] = 1;
  f[1] = static_cast<float>(shown.bid_card()) / kCards;
  f[2] = shown.bid_seat() == view.seat() ? 1.f : 0.f;
  const auto column = ColumnInPlay(view, cushion);
  ColumnFeatures(column, f + 3);
  f[12] = static_cast<float>(column.size()) / 3;
}

void SeatFeatures(const v1::MoonlightView& view, int seat, float* f) {
  const auto& shown = view.seats(seat);
  f[0] = 1;
  f[1] = shown.automaton();
  f[2] = static_cast<float>(shown.seals()) / 10.f;
  f[3] = static_cast<float>(shown.prestige()) / 40.f;
  for (const auto& cushion : view.cushions()) f[4] += cushion.bid_seat() == seat;
  f[5] = static_cast<float>(shown.displaced()) / kCards;
  for (int colour = 0; colour < std::min(kColours, shown.chains_size()); ++colour) {
    const auto tiles = ChainTiles(shown.chains(colour));
    f[6 + colour] = static_cast<float>(ChainValue(tiles)) / 30.f;
    f[11 + colour] = static_cast<float>(tiles.size()) / kChainLimit;
    f[16 + colour] = Eligible(tiles);
  }
  f[21] = static_cast<float>(shown.held_size()) / kColumns;
}

// What attaching `tile` to `chain` does: value gained, full chain discarded, seal.
void AttachFeatures(const std::vector<uint8_t>& chain, int tile, bool face_discard, float* f) {
  std::vector<uint8_t> after = chain;
  if (chain.size() == kChainLimit) {
    after.clear();
    f[2] = 1;
    f[3] = ChainValue(chain, !face_discard) >= kDiscardSealValue;
  }
  after.push_back(static_cast<uint8_t>(tile));
  f[0] = Describe(tile).value / 10.f;
  f[1] = static_cast<float>(ChainValue(after) - ChainValue(chain)) / 30.f;
  f[4] = Eligible(after) && !Eligible(chain);
}

// The observation: general (10), own cards (27), cushions, seats from the viewer on.
void ObservationFeatures(const v1::MoonlightView& view, std::vector<float>& obs) {
  const int n = view.seats_size();
  const int viewer = view.seat();
  const auto& own = view.seats(viewer);
  obs.assign(kObservationSize, 0.f);
  float* f = obs.data();
  f[n - 3] = 1;
  f[3] = static_cast<float>(view.humans()) / kMaxParticipants;
  f[4] = view.phase() == v1::MOONLIGHT_PHASE_BID;
  f[5] = view.phase() == v1::MOONLIGHT_PHASE_CHAIN;
  f[6] = static_cast<float>(view.pass()) / kPasses;
  f[7] = static_cast<float>(view.round()) / kRounds;
  f[8] = static_cast<float>(view.seal_supply()) / kSealTokens;
  f[9] = view.coin_holder() == viewer;
  f += 10;
  for (uint32_t card : own.hand()) f[std::clamp<uint32_t>(card, 1, kCards) - 1] = 1;
  f[13] = static_cast<float>(own.displaced()) / kCards;
  for (uint32_t card : own.under()) f[14 + std::clamp<uint32_t>(card, 1, kCards) - 1] = 1;
  f += 27;
  for (int cushion = 0; cushion < n; ++cushion) CushionFeatures(view, cushion, f + cushion * kCushionSize);
  f += kMaxParticipants * kCushionSize;
  for (int offset = 0; offset < n; ++offset)
    SeatFeatures(view, (viewer + offset) % n, f + offset * kSeatSize);
}

void BidMoveFeatures(const v1::MoonlightView& view, Move move, float* m) {
  const int cushion = BidCushion(move);
  m[0] = 1;
  m[1] = static_cast<float>(BidCard(move)) / kCards;
  m[2] = cushion == 0;
  if (cushion < view.seats_size()) {
    m[3] = view.cushions(cushion).bid_seat() >= 0;
    const auto column = ColumnInPlay(view, cushion);
    m[4] = static_cast<float>(GemValue(column)) / 20.f;
    m[5] = static_cast<float>(column.size()) / kColumns;
    ColumnFeatures(column, m + 16 + kColours);
    m[16 + kColours + kColumnSize] = static_cast<float>(view.cushions(cushion).bid_card()) / kCards;
  }
}

using OwnChains = std::array<std::vector<uint8_t>, kColours>;

void HammerMoveFeatures(const OwnChains& chains, Move move, float* m) {
  m[6] = 1;
  if (move.id == kHammerDiscard) {
    m[7] = 1;
    return;
  }
  const int colour = HammerColour(move), position = HammerPosition(move);
  const std::vector<uint8_t>& chain = chains[colour];
  if (position < static_cast<int>(chain.size())) {
    std::vector<uint8_t> after = chain;
    after.erase(after.begin() + position);
    m[8] = Describe(chain[position]).value / 10.f;
    m[9] = static_cast<float>(ChainValue(chain) - ChainValue(after)) / 30.f;
  }
  m[16 + colour] = 1;
}

}  // namespace

absl::Status FeaturizeMoonlight(const v1::View& view_proto, std::span<const Move> moves,
                                Features* out) {
  v1::MoonlightView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the moonlight_market view"));
  const int n = view.seats_size();
  if (n < 3 || n > kMaxParticipants || view.cushions_size() != n || view.seat() < 0 ||
      view.seat() >= n)
    return absl::InvalidArgumentError("moonlight_market: the view is malformed");
  ObservationFeatures(view, out->observation);
  const auto& own = view.seats(view.seat());
  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  OwnChains chains;
  for (int colour = 0; colour < std::min(kColours, own.chains_size()); ++colour)
    chains[colour] = ChainTiles(own.chains(colour));
  for (size_t i = 0; i < moves.size(); ++i) {
    float* m = out->moves.data() + i * kMoveSize;
    const Move move = moves[i];
    if (IsBid(move)) {
      BidMoveFeatures(view, move, m);
    } else if (IsHammer(move)) {
      HammerMoveFeatures(chains, move, m);
    } else if (IsAttach(move) && AttachTile(move) <= kWorthless && AttachColour(move) < kColours) {
      m[10] = 1;
      AttachFeatures(chains[AttachColour(move)], AttachTile(move), view.rules().face_discard_value(),
                     m + 11);
      m[16 + AttachColour(move)] = 1;
    }
  }
  return absl::OkStatus();
}

}  // namespace gavel::moonlight_market
