// Learning features for Mercado, computed from a seat's view only.
#include <algorithm>

#include "engine/core/proto_util.h"
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

}  // namespace

absl::Status FeaturizeMercado(const v1::View& view_proto, std::span<const Move> moves,
                              Features* out) {
  v1::MercadoView view;
  if (auto status = UnpackAny(view_proto.view(), &view, "the mercado view"); !status.ok())
    return status;
  const v1::MercadoTable& table = view.table();
  const int players = static_cast<int>(table.players());
  if (players < 2 || players > kMaxPlayers || table.seats_size() != players || view.seat() < 0 ||
      view.seat() >= players || table.display_size() != kPositions || table.start_space() >= kSpaces)
    return absl::InvalidArgumentError("mercado: the view is malformed");
  for (int position = 0; position < kPositions; ++position)
    if (table.display(position) >= kTiles) return absl::InvalidArgumentError("mercado: bad tile");
  for (const auto& seat : table.seats())
    if (seat.edges_size() != kPositions) return absl::InvalidArgumentError("mercado: bad edges");
  const int viewer = view.seat();
  const int side = table.board_side() == v1::MERCADO_BOARD_SIDE_B ? 1 : 0;
  auto relative = [&](int seat) { return (seat - viewer + players) % players; };

  std::vector<float>& obs = out->observation;
  obs.assign(kObservationSize, 0.f);
  float* f = obs.data();
  f[players - 2] = 1;
  f += 3;
  f[0] = static_cast<float>(side);
  f[1] = static_cast<float>(table.start_space()) / 29.f;
  f += 2;
  const int phase = std::clamp(static_cast<int>(table.phase()), 1, 9);
  f[phase - 1] = 1;
  f += 9;
  f[0] = table.active_seat() == viewer ? 1.f : 0.f;
  f[1] = std::min<float>(static_cast<float>(table.extra_turns()), 5.f) / 5.f;
  f[2] = table.end_triggered() ? 1.f : 0.f;
  f[3] = table.placed_this_turn() ? 1.f : 0.f;
  f += 4;
  const CoinCounts drawn = Coins(table.drawn());
  for (int coin = 0; coin < kPlaceable; ++coin) f[coin] = static_cast<float>(drawn[coin]) / 5.f;
  f += kPlaceable;
  f[0] = table.joker_in_hand() ? 1.f : 0.f;
  f += 1;
  std::array<CoinCounts, kPositions> own_edges{};
  for (int position = 0; position < kPositions; ++position, f += kPositionFeatures) {
    const int tile = static_cast<int>(table.display(position));
    TileFeatures(tile, f);
    for (int seat = 0; seat < players; ++seat)
      f[kTileFeatures + relative(seat)] =
          static_cast<float>(CoinTotal(Coins(table.seats(seat).edges(position)))) / 4.f;
    own_edges[position] = Coins(table.seats(viewer).edges(position));
    for (int coin = 0; coin < kPlaceable; ++coin)
      f[kTileFeatures + kMaxPlayers + coin] = static_cast<float>(own_edges[position][coin]) / 4.f;
    f[kTileFeatures + kMaxPlayers + kPlaceable] =
        static_cast<float>(std::max(0, Tile(tile).price.slots - CoinTotal(own_edges[position]))) / 4.f;
  }
  // Ranks from progress and stack height, as the rules define them.
  std::array<int, kMaxPlayers> progress{}, height{};
  for (int seat = 0; seat < players; ++seat) {
    progress[seat] = static_cast<int>(std::min<uint32_t>(table.seats(seat).progress(), 250));
    height[seat] = static_cast<int>(std::min<uint32_t>(table.seats(seat).stack_height(), 3));
  }
  auto rank_of = [&](int seat, int with_progress, int with_height) {
    int rank = 1;
    for (int other = 0; other < players; ++other)
      if (other != seat && (progress[other] > with_progress ||
                            (progress[other] == with_progress && height[other] > with_height)))
        ++rank;
    return rank;
  };
  for (int seat = 0; seat < players; ++seat) {
    float* s = f + relative(seat) * kSeatFeatures;
    const v1::MercadoSeat& shown = table.seats(seat);
    s[0] = 1;
    s[1] = static_cast<float>(progress[seat]) / 30.f;
    s[2] = static_cast<float>(height[seat]) / 3.f;
    s[3] = static_cast<float>(rank_of(seat, progress[seat], height[seat])) / 4.f;
    s[4] = static_cast<float>(std::min<uint32_t>(shown.seals(), 15)) / 15.f;
    s[5] = static_cast<float>(std::min<uint32_t>(shown.privilege_count(), 18)) / 5.f;
    const CoinCounts bag = Coins(shown.bag()), person = Coins(shown.person_tile());
    for (int coin = 0; coin < kCoinKinds; ++coin) {
      s[6 + coin] = static_cast<float>(bag[coin]) / 10.f;
      s[6 + kCoinKinds + coin] = static_cast<float>(person[coin]) / 10.f;
    }
  }
  f += kMaxPlayers * kSeatFeatures;
  for (const auto& privilege : view.own_privileges())
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
                           static_cast<float>(IdleTurnLimit(players)));

  // The landing symbol a move of `steps` by the active seat would meet.
  const int active = std::clamp(table.active_seat(), 0, players - 1);
  auto symbol_after = [&](int steps) -> int {
    const int to = progress[active] + steps;
    if (to >= kSpaces) return kNoEffect;
    const int space = (static_cast<int>(table.start_space()) + to) % kSpaces;
    for (int other = 0; other < players; ++other)
      if (other != active && (static_cast<int>(table.start_space()) + progress[other]) % kSpaces == space)
        return kNoEffect;
    return TheEdition().tracks[side][space];
  };

  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  for (size_t i = 0; i < moves.size(); ++i) {
    float* m = out->moves.data() + i * kMoveSize;
    const uint32_t id = moves[i].id;
    if (id >= kMoveLimit) continue;
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
      if (id < kDiscardBase) symbol_part[symbol_after(privilege.value)] = 1;
    }
    if (position >= 0) {
      const TileData& tile = Tile(static_cast<int>(table.display(position)));
      CoinCounts edge = own_edges[position];
      if (coin >= 0) ++edge[coin];
      rest[2] = Completes(tile.price, edge) ? 1.f : 0.f;
      rest[3] = tile.points > 0 ? static_cast<float>(tile.points) / 7.f : 0.f;
      rest[4] = static_cast<float>(std::max(0, tile.price.slots - CoinTotal(edge))) / 4.f;
      if (id >= kScoreBase && id < kPlaceJokerBase) {
        const int points = tile.points == kRankPoints
                               ? rank_of(active, progress[active], height[active])
                           : tile.points > 0 ? tile.points
                                             : 0;
        rest[5] = static_cast<float>(points) / 7.f;
        symbol_part[symbol_after(points)] = points > 0 ? 1.f : 0.f;
      }
    }
    if (id == kUseSymbol || id == kSkipSymbol) {
      const int space = (static_cast<int>(table.start_space()) + progress[active]) % kSpaces;
      if (progress[active] < kSpaces) symbol_part[TheEdition().tracks[side][space]] = 1;
    }
  }
  return absl::OkStatus();
}

}  // namespace gavel::mercado
