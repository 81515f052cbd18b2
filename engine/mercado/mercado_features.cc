// Learning features for Mercado, computed from a seat's view only.
#include <algorithm>
#include <array>

#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/mercado/mercado.h"
#include "gavel/v1/mercado.pb.h"

namespace gavel::mercado {
namespace {

CoinCounts Coins(const v1::MercadoCoins& in) {
  auto clamp = [](uint32_t count) { return static_cast<uint8_t>(std::min<uint32_t>(count, 60)); };
  return {clamp(in.gold()),      clamp(in.silver()), clamp(in.copper()),
          clamp(in.turquoise()), clamp(in.white()),  clamp(in.black())};
}

// Per tile: points, rank, reveal, slots per group kind (4 colours, same, different,
// joker), buyer and opponent effect counts per effect, no seal.
constexpr int kTileFeatures = 3 + 7 + kEffectKinds + 1;
void TileFeatures(int tile_id, float* f) {
  const TileData& tile = Tile(tile_id);
  f[0] = tile.points > 0 ? static_cast<float>(tile.points) / 7.f : 0.f;
  f[1] = tile.points == kRankPoints ? 1.f : 0.f;
  f[2] = tile.points == kRevealPoints ? 1.f : 0.f;
  for (int g = 0; g < tile.price.group_count; ++g) {
    const PriceGroup& group = tile.price.groups[g];
    const int index = group.kind == Group::kFixed ? group.colour
                      : group.kind == Group::kSame ? 4
                      : group.kind == Group::kDifferent ? 5
                                                         : 6;
    f[3 + index] += static_cast<float>(group.slots) / 4.f;
  }
  for (Effect effect : tile.buyer) f[10 + effect] += effect != kNoEffect ? 0.5f : 0.f;
  for (Effect effect : tile.opponents) f[10 + effect] -= effect != kNoEffect ? 0.5f : 0.f;
  f[10 + kEffectKinds] = tile.no_seal ? 1.f : 0.f;
}

constexpr int kPositionFeatures = kTileFeatures + kMaxPlayers + kPlaceable + 1;
constexpr int kSeatFeatures = 6 + 2 * kCoinKinds;
// Observation layout (kObservationSize floats): players one-hot (3), side, start space,
// phase one-hot (9), viewer active, extra turns, end triggered, placed this turn, drawn
// coins (5), joker in hand, per display position (8 x kPositionFeatures), per seat relative
// to the viewer (4 x kSeatFeatures), own privileges per type (8), supplies and decks (6),
// idle turns towards the stuck-game limit (1).
constexpr int kObservationSize = 3 + 2 + 9 + 4 + kPlaceable + 1 + kPositions * kPositionFeatures +
                                 kMaxPlayers * kSeatFeatures + kPrivilegeTypes + 7;
// Move layout: kind one-hot (13), coin one-hot (5), position one-hot (8), privilege value
// and extra, completes the tile, tile points, slots left after, score points, symbol
// one-hot at the landing space (12).
constexpr int kMoveKinds = 13;
constexpr int kMoveSize = kMoveKinds + kPlaceable + kPositions + 2 + 3 + 1 + kEffectKinds;

int MoveKind(uint32_t id) {
  if (id <= kStop) return static_cast<int>(id);  // 0..7
  if (id < kDiscardBase) return 8;
  if (id < kScoreBase) return 9;
  if (id < kPlaceJokerBase) return 10;
  if (id < kPlaceBase) return 11;
  return 12;
}

// What the features of one view share: the table, the viewer and the ranking inputs.
struct TableContext {
  const v1::MercadoView& view;
  const v1::MercadoTable& table;
  int players = 0;
  int viewer = 0;
  int side = 0;
  int active = 0;  // the seat to move, clamped into range
  std::array<int, kMaxPlayers> progress{}, height{};
  std::array<CoinCounts, kPositions> own_edges{};

  int Relative(int seat) const { return (seat - viewer + players) % players; }
  // The rank `seat` would have with this progress and stack height, as the rules rank.
  int RankOf(int seat, int with_progress, int with_height) const {
    int rank = 1;
    for (int other = 0; other < players; ++other)
      if (other != seat && (progress[other] > with_progress ||
                            (progress[other] == with_progress && height[other] > with_height)))
        ++rank;
    return rank;
  }
  // The landing symbol a move of `steps` by the active seat would meet.
  int SymbolAfter(int steps) const {
    const int to = progress[active] + steps;
    if (to >= kSpaces) return kNoEffect;
    const int space = (static_cast<int>(table.start_space()) + to) % kSpaces;
    for (int other = 0; other < players; ++other)
      if (other != active && (static_cast<int>(table.start_space()) + progress[other]) % kSpaces == space)
        return kNoEffect;
    return TheEdition().tracks[side][space];
  }
};

absl::Status CheckView(const v1::MercadoView& view) {
  const v1::MercadoTable& table = view.table();
  const int players = static_cast<int>(table.players());
  if (players < 2 || players > kMaxPlayers || table.seats_size() != players || view.seat() < 0 ||
      view.seat() >= players || table.display_size() != kPositions || table.start_space() >= kSpaces)
    return absl::InvalidArgumentError("mercado: the view is malformed");
  for (int position = 0; position < kPositions; ++position)
    if (table.display(position) >= kTiles) return absl::InvalidArgumentError("mercado: bad tile");
  for (const auto& seat : table.seats())
    if (seat.edges_size() != kPositions) return absl::InvalidArgumentError("mercado: bad edges");
  return absl::OkStatus();
}

// Players, board, phase, the turn's state and the drawn coins.
float* ObserveTurn(const TableContext& c, float* f) {
  const v1::MercadoTable& table = c.table;
  f[c.players - 2] = 1;
  f += 3;
  f[0] = static_cast<float>(c.side);
  f[1] = static_cast<float>(table.start_space()) / 29.f;
  f += 2;
  const int phase = std::clamp(static_cast<int>(table.phase()), 1, 9);
  f[phase - 1] = 1;
  f += 9;
  f[0] = table.active_seat() == c.viewer ? 1.f : 0.f;
  f[1] = std::min<float>(static_cast<float>(table.extra_turns()), 5.f) / 5.f;
  f[2] = table.end_triggered() ? 1.f : 0.f;
  f[3] = table.placed_this_turn() ? 1.f : 0.f;
  f += 4;
  const CoinCounts drawn = Coins(table.drawn());
  for (int coin = 0; coin < kPlaceable; ++coin) f[coin] = static_cast<float>(drawn[coin]) / 5.f;
  f += kPlaceable;
  f[0] = table.joker_in_hand() ? 1.f : 0.f;
  return f + 1;
}

// Each display position: its tile, every seat's coins on it, the viewer's coins and slots left.
float* ObservePositions(TableContext& c, float* f) {
  const v1::MercadoTable& table = c.table;
  for (int position = 0; position < kPositions; ++position, f += kPositionFeatures) {
    const int tile = static_cast<int>(table.display(position));
    TileFeatures(tile, f);
    for (int seat = 0; seat < c.players; ++seat)
      f[kTileFeatures + c.Relative(seat)] =
          static_cast<float>(CoinTotal(Coins(table.seats(seat).edges(position)))) / 4.f;
    c.own_edges[position] = Coins(table.seats(c.viewer).edges(position));
    for (int coin = 0; coin < kPlaceable; ++coin)
      f[kTileFeatures + kMaxPlayers + coin] = static_cast<float>(c.own_edges[position][coin]) / 4.f;
    f[kTileFeatures + kMaxPlayers + kPlaceable] =
        static_cast<float>(std::max(0, Tile(tile).price.slots - CoinTotal(c.own_edges[position]))) / 4.f;
  }
  return f;
}

// Each seat relative to the viewer: progress, height, rank, seals, privileges, bag, person tile.
float* ObserveSeats(const TableContext& c, float* f) {
  for (int seat = 0; seat < c.players; ++seat) {
    float* s = f + c.Relative(seat) * kSeatFeatures;
    const v1::MercadoSeat& shown = c.table.seats(seat);
    s[0] = 1;
    s[1] = static_cast<float>(c.progress[seat]) / 30.f;
    s[2] = static_cast<float>(c.height[seat]) / 3.f;
    s[3] = static_cast<float>(c.RankOf(seat, c.progress[seat], c.height[seat])) / 4.f;
    s[4] = static_cast<float>(std::min<uint32_t>(shown.seals(), 15)) / 15.f;
    s[5] = static_cast<float>(std::min<uint32_t>(shown.privilege_count(), 18)) / 5.f;
    const CoinCounts bag = Coins(shown.bag()), person = Coins(shown.person_tile());
    for (int coin = 0; coin < kCoinKinds; ++coin) {
      s[6 + coin] = static_cast<float>(bag[coin]) / 10.f;
      s[6 + kCoinKinds + coin] = static_cast<float>(person[coin]) / 10.f;
    }
  }
  return f + kMaxPlayers * kSeatFeatures;
}

// The viewer's privileges, the supplies, the decks and the idle turns.
void ObserveSupplies(const TableContext& c, float* f) {
  const v1::MercadoTable& table = c.table;
  for (const auto& privilege : c.view.own_privileges())
    f[std::min<uint32_t>(privilege.type(), kPrivilegeTypes - 1)] += 1.f / 3.f;
  f += kPrivilegeTypes;
  const CoinCounts supply = Coins(table.supply());
  f[0] = static_cast<float>(supply[kWhite]) / kJokers;
  f[1] = static_cast<float>(supply[kBlack]) / kCounterfeits;
  f[2] = static_cast<float>(std::min<uint32_t>(table.seal_supply(), kSeals)) / kSeals;
  f[3] = static_cast<float>(std::min<uint32_t>(table.privilege_supply_size(), 18)) / 18.f;
  f[4] = static_cast<float>(std::min<uint32_t>(table.item_deck_size(), kItems)) / kItems;
  f[5] = static_cast<float>(std::min<uint32_t>(table.perfume_deck_size(), kPerfumes)) / kPerfumes;
  f[6] = std::min(1.f, static_cast<float>(table.idle_turns()) /
                           static_cast<float>(IdleTurnLimit(c.players)));
}

// One move: kind, coin, position, privilege, what it does to the tile, the symbol it meets.
void FeaturizeMove(const TableContext& c, uint32_t id, float* m) {
  if (id >= kMoveLimit) return;
  m[MoveKind(id)] = 1;
  float* coin_part = m + kMoveKinds;
  float* position_part = coin_part + kPlaceable;
  float* rest = position_part + kPositions;
  float* symbol_part = rest + 6;
  int coin = -1, position = -1;
  if (id >= kPlaceBase) {
    coin = static_cast<int>(id - kPlaceBase) / 8;
    position = static_cast<int>(id - kPlaceBase) % 8;
  } else if (id >= kPlaceJokerBase) {
    coin = kWhite;
    position = static_cast<int>(id - kPlaceJokerBase);
  } else if (id >= kScoreBase) {
    position = static_cast<int>(id - kScoreBase);
  }
  if (coin >= 0) coin_part[coin] = 1;
  if (position >= 0) position_part[position] = 1;
  if (id >= kPlayPrivilegeBase && id < kScoreBase) {
    const PrivilegeType& privilege = Privilege(static_cast<int>(id - kPlayPrivilegeBase) % 8);
    rest[0] = static_cast<float>(privilege.value) / 3.f;
    rest[1] = privilege.extra != kNoEffect ? 1.f : 0.f;
    if (id < kDiscardBase) symbol_part[c.SymbolAfter(privilege.value)] = 1;
  }
  if (position >= 0) {
    const TileData& tile = Tile(static_cast<int>(c.table.display(position)));
    CoinCounts edge = c.own_edges[position];
    if (coin >= 0) ++edge[coin];
    rest[2] = Completes(tile.price, edge) ? 1.f : 0.f;
    rest[3] = tile.points > 0 ? static_cast<float>(tile.points) / 7.f : 0.f;
    rest[4] = static_cast<float>(std::max(0, tile.price.slots - CoinTotal(edge))) / 4.f;
    if (id >= kScoreBase && id < kPlaceJokerBase) {
      const int active = c.active;
      const int points = tile.points == kRankPoints ? c.RankOf(active, c.progress[active], c.height[active])
                         : tile.points > 0          ? tile.points
                                                    : 0;
      rest[5] = static_cast<float>(points) / 7.f;
      symbol_part[c.SymbolAfter(points)] = points > 0 ? 1.f : 0.f;
    }
  }
  if (id == kUseSymbol || id == kSkipSymbol) {
    const int space = (static_cast<int>(c.table.start_space()) + c.progress[c.active]) % kSpaces;
    if (c.progress[c.active] < kSpaces) symbol_part[TheEdition().tracks[c.side][space]] = 1;
  }
}

}  // namespace

absl::Status FeaturizeMercado(const v1::View& view_proto, std::span<const Move> moves,
                              Features* out) {
  PooledScratch<v1::MercadoView> scratch;  // reused: no allocation per decision
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(view_proto.view(), "the mercado view"));
  const v1::MercadoView& view = *scratch;
  GAVEL_RETURN_IF_ERROR(CheckView(view));
  const v1::MercadoTable& table = view.table();
  TableContext c{.view = view, .table = table};
  c.players = static_cast<int>(table.players());
  c.viewer = view.seat();
  c.side = table.board_side() == v1::MERCADO_BOARD_SIDE_B ? 1 : 0;
  c.active = std::clamp(table.active_seat(), 0, c.players - 1);
  for (int seat = 0; seat < c.players; ++seat) {
    c.progress[seat] = static_cast<int>(std::min<uint32_t>(table.seats(seat).progress(), 250));
    c.height[seat] = static_cast<int>(std::min<uint32_t>(table.seats(seat).stack_height(), 3));
  }
  out->observation.assign(kObservationSize, 0.f);
  float* f = ObserveTurn(c, out->observation.data());
  f = ObservePositions(c, f);
  f = ObserveSeats(c, f);
  ObserveSupplies(c, f);
  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  for (size_t i = 0; i < moves.size(); ++i) FeaturizeMove(c, moves[i].id, out->moves.data() + i * kMoveSize);
  return absl::OkStatus();
}

}  // namespace gavel::mercado
