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
// Last the standings (kStandingSize): how the move changes the pass scoring as if it were
// scored now — the mover's points and the other seats' mean — and the mover's seals; for a
// bid, with the column's tiles placed where they gain the mover most, and the most any other
// seat would gain from that column (what the bid denies it); then how the mover's points in
// the final seal scoring change with those seals. Each seat's place in every colour is a
// comparison with every other seat's chain, which a small network does not learn from the
// chain values alone. Then, for an attach, the turn planned after it: the pass points and
// seals when the mover's other held tiles follow where they gain most (a tile's best chain
// depends on the tiles still to come, which a search sees and a network scoring one move
// at a time does not).
constexpr int kColumnSize = kColours + 4;
constexpr int kStandingSize = 3;  // pass points, the others' mean, seals
constexpr int kRivalGain = kStandingSize;
constexpr int kSealScoring = kStandingSize + 1;
constexpr int kStandingOffset = 1 + 5 + 1 + 3 + 1 + 5 + kColours + kColumnSize + 1;
constexpr int kPlan = kStandingOffset + kSealScoring + 1;
constexpr int kMoveSize = kPlan + 2;

// The known tiles among `codes`, at most `limit` of them: a forged view must not blow up a
// placement search.
std::vector<uint8_t> KnownTiles(const google::protobuf::RepeatedField<uint32_t>& codes,
                                size_t limit) {
  std::vector<uint8_t> tiles;
  for (uint32_t tile : codes)
    if (tile < kTileKinds && tiles.size() < limit) tiles.push_back(static_cast<uint8_t>(tile));
  return tiles;
}

std::vector<uint8_t> ChainTiles(const v1::MoonlightChain& chain) {
  return KnownTiles(chain.tiles(), kChainLimit);
}

std::vector<uint8_t> ColumnInPlay(const v1::MoonlightView& view, int cushion) {
  const auto& shown = view.cushions(cushion);
  if (view.round() >= static_cast<uint32_t>(shown.columns_size())) return {};
  return KnownTiles(shown.columns(static_cast<int>(view.round())).tiles(), Rows(0));
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

// `chain` with `tile` attached: a full chain goes to the box first (docs/rules/moonlight_market.md §6.4).
std::vector<uint8_t> WithTile(const std::vector<uint8_t>& chain, int tile) {
  std::vector<uint8_t> after;
  if (chain.size() < kChainLimit) after = chain;
  after.push_back(static_cast<uint8_t>(tile));
  return after;
}

// What attaching `tile` to `chain` does: value gained, full chain discarded, seal.
void AttachFeatures(const std::vector<uint8_t>& chain, int tile, bool face_discard, float* f) {
  const std::vector<uint8_t> after = WithTile(chain, tile);
  f[2] = chain.size() == kChainLimit;
  f[3] = DiscardEarnsSeal(chain, face_discard);
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

// The standings of the pass scoring were it held now, for one seat and the others.
class Standings {
 public:
  // The standings as `viewer` sees them: its chains against every other seat's (all public).
  Standings(const v1::MoonlightView& view, int viewer)
      : viewer_(viewer), competition_(view.rules().competition_ranking()),
        face_discard_(view.rules().face_discard_value()), table_(view.seats_size()) {
    for (int seat = 0; seat < view.seats_size(); ++seat) {
      const auto& shown = view.seats(seat);
      for (int colour = 0; colour < std::min(kColours, shown.chains_size()); ++colour)
        table_[seat][colour] = ChainTiles(shown.chains(colour));
    }
    for (int colour = 0; colour < kColours; ++colour) before_[colour] = Colour(colour, own()[colour]);
  }

  const OwnChains& own() const { return table_[viewer_]; }

  // The change in the viewer's points and in the others' mean when its chains become `after`.
  void Change(const OwnChains& after, float* f) const {
    for (int colour = 0; colour < kColours; ++colour) {
      if (after[colour] == own()[colour]) continue;
      const Points now = Colour(colour, after[colour]);
      f[0] += static_cast<float>(now.own - before_[colour].own) / 4.f;
      f[1] += static_cast<float>(now.others - before_[colour].others) / 4.f;
    }
  }

  // A bid's column placed tile by tile where it gains the viewer most (hammers left unused):
  // writes the standings' change and the seals the column brings.
  void BestPlacement(const std::vector<uint8_t>& column, float* f) const {
    BestPlacementFrom(own(), column, 0, f);
  }

  // The same from the chains `chains` and `seals` seals already gained this turn.
  void BestPlacementFrom(OwnChains chains, const std::vector<uint8_t>& tiles, int seals, float* f) const {
    float best[kStandingSize] = {-1e9f, 0, 0};
    Place(tiles, 0, chains, seals, best);
    for (int i = 0; i < kStandingSize; ++i) f[i] += best[i];
  }

  bool face_discard() const { return face_discard_; }

 private:
  struct Points {
    int own = 0;
    float others = 0;
  };

  Points Colour(int colour, const std::vector<uint8_t>& own_chain) const {
    const int n = static_cast<int>(table_.size());
    std::vector<int> values(n);
    std::vector<bool> eligible(n);
    for (int seat = 0; seat < n; ++seat) {
      const auto& tiles = seat == viewer_ ? own_chain : table_[seat][colour];
      values[seat] = ChainValue(tiles);
      eligible[seat] = Eligible(tiles);
    }
    const std::vector<int> points = Awards(values, eligible, competition_);
    Points result;
    result.own = points[viewer_];
    for (int seat = 0; seat < n; ++seat)
      if (seat != viewer_) result.others += static_cast<float>(points[seat]) / (n - 1);
    return result;
  }

  void Place(const std::vector<uint8_t>& column, size_t next, OwnChains& chains, int seals,
             float* best) const {
    if (next == column.size()) {
      float f[kStandingSize] = {0, 0, static_cast<float>(seals)};
      Change(chains, f);
      if (f[0] > best[0]) std::copy(f, f + kStandingSize, best);
      return;
    }
    const int tile = column[next];
    const TileInfo info = Describe(tile);
    if (info.type == TileType::kSeal || info.type == TileType::kHammer) {
      Place(column, next + 1, chains, seals + (info.type == TileType::kSeal), best);
      return;
    }
    for (int colour = 0; colour < kColours; ++colour) {
      const bool fits = info.type == TileType::kWorthless || colour == info.colour ||
                        (info.type == TileType::kTwoGem && colour == info.second);
      if (!fits) continue;
      const std::vector<uint8_t> kept = chains[colour];
      chains[colour] = WithTile(kept, tile);
      Place(column, next + 1, chains, seals + DiscardEarnsSeal(kept, face_discard_), best);
      chains[colour] = kept;
    }
  }

  int viewer_;
  bool competition_, face_discard_;
  std::vector<OwnChains> table_;
  std::array<Points, kColours> before_;
};

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

// The change in the viewer's points of the final seal scoring were it held now, when its
// seals change by `gained` and `payee` (if any) gains one.
float SealStanding(const v1::MoonlightView& view, int gained, int payee) {
  const int n = view.seats_size();
  std::vector<int> before(n), after(n);
  for (int seat = 0; seat < n; ++seat) before[seat] = after[seat] = static_cast<int>(view.seats(seat).seals());
  after[view.seat()] = std::max(0, after[view.seat()] + gained);
  if (payee >= 0 && payee < n) ++after[payee];
  const auto points = [&](const std::vector<int>& seals) {
    std::vector<bool> eligible(n);
    for (int seat = 0; seat < n; ++seat) eligible[seat] = seals[seat] > 0;
    return Awards(seals, eligible, view.rules().competition_ranking())[view.seat()];
  };
  return static_cast<float>(points(after) - points(before)) / 4.f;
}

// A bid's standings (kStandingSize) and the most a rival would gain from its column.
std::array<float, kRivalGain + 1> ColumnStandings(const Standings& own,
                                                  const std::vector<Standings>& rivals,
                                                  const std::vector<uint8_t>& column) {
  std::array<float, kRivalGain + 1> f{};
  own.BestPlacement(column, f.data());
  for (const Standings& rival : rivals) {
    float theirs[kStandingSize] = {0, 0, 0};
    rival.BestPlacement(column, theirs);
    f[kRivalGain] = std::max(f[kRivalGain], theirs[0]);
  }
  return f;
}

// The turn planned after attaching `attached` (chains now `after`, `seals` gained by it): the
// mover's other held tiles placed where they gain most; writes the pass points and the seals.
void TurnPlan(const v1::MoonlightView& view, const Standings& standings, const OwnChains& after,
              int attached, int seals, float* f) {
  const size_t limit = Rows(0);  // at most a moon column's tiles
  auto rest = KnownTiles(view.seats(view.seat()).held(), limit + 1);
  if (auto it = std::find(rest.begin(), rest.end(), attached); it != rest.end()) rest.erase(it);
  if (rest.size() > limit) rest.resize(limit);
  float plan[kStandingSize] = {0, 0, 0};
  standings.BestPlacementFrom(after, rest, seals, plan);
  f[0] = plan[0];
  f[1] = plan[2];
}

}  // namespace

absl::Status FeaturizeMoonlight(const v1::View& view_proto, std::span<const Move> moves,
                                Features* out) {
  PooledScratch<v1::MoonlightView> scratch;  // reused: no allocation per decision
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(view_proto.view(), "the moonlight_market view"));
  const v1::MoonlightView& view = *scratch;
  const int n = view.seats_size();
  if (n < 3 || n > kMaxParticipants || view.cushions_size() != n || view.seat() < 0 ||
      view.seat() >= n)
    return absl::InvalidArgumentError("moonlight_market: the view is malformed");
  ObservationFeatures(view, out->observation);
  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  const Standings standings(view, view.seat());
  const OwnChains& chains = standings.own();
  std::vector<Standings> rivals;  // made at the first bid: only bids need them
  std::array<std::array<float, kRivalGain + 1>, kMaxParticipants> placements;
  std::array<bool, kMaxParticipants> placed{};
  for (size_t i = 0; i < moves.size(); ++i) {
    float* m = out->moves.data() + i * kMoveSize;
    float* standing = m + kStandingOffset;
    const Move move = moves[i];
    if (IsBid(move)) {
      BidMoveFeatures(view, move, m);
      const int cushion = BidCushion(move);
      if (cushion >= n) continue;
      if (!placed[cushion]) {
        if (rivals.empty())
          for (int seat = 0; seat < n; ++seat)
            if (seat != view.seat()) rivals.emplace_back(view, seat);
        placements[cushion] = ColumnStandings(standings, rivals, ColumnInPlay(view, cushion));
        placed[cushion] = true;
      }
      std::copy(placements[cushion].begin(), placements[cushion].end(), standing);
      standing[2] -= m[3];  // displacing a card pays its owner a seal
      const int payee = m[3] > 0 ? view.cushions(cushion).bid_seat() : -1;
      standing[kSealScoring] = SealStanding(view, static_cast<int>(standing[2]), payee);
    } else if (IsHammer(move)) {
      HammerMoveFeatures(chains, move, m);
      const int colour = HammerColour(move), position = HammerPosition(move);
      if (move.id == kHammerDiscard || position >= static_cast<int>(chains[colour].size())) continue;
      OwnChains after = chains;
      after[colour].erase(after[colour].begin() + position);
      standings.Change(after, standing);
    } else if (IsAttach(move) && AttachTile(move) <= kWorthless && AttachColour(move) < kColours) {
      const int colour = AttachColour(move), tile = AttachTile(move);
      m[10] = 1;
      AttachFeatures(chains[colour], tile, standings.face_discard(), m + 11);
      m[16 + colour] = 1;
      OwnChains after = chains;
      after[colour] = WithTile(chains[colour], tile);
      standings.Change(after, standing);
      standing[2] = DiscardEarnsSeal(chains[colour], standings.face_discard());
      standing[kSealScoring] = SealStanding(view, static_cast<int>(standing[2]), -1);
      TurnPlan(view, standings, after, tile, static_cast<int>(standing[2]), m + kPlan);
    }
  }
  return absl::OkStatus();
}

}  // namespace gavel::moonlight_market
