// Mercado's wire forms: full state, validation of untrusted states, the view filter,
// resampling from a view, and move decoding.
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/core/registry.h"
#include "engine/mercado/mercado.h"
#include "gavel/v1/mercado.pb.h"

namespace gavel::mercado {

absl::Status FeaturizeMercado(const v1::View& view, std::span<const Move> moves, Features* out);

namespace {

absl::Status Invalid(const auto&... parts) { return InvalidInput("mercado", parts...); }

constexpr uint32_t kAllItems = (uint32_t{1} << kItems) - 1;
constexpr uint32_t kAllPerfumes = (uint32_t{1} << kPerfumes) - 1;
// Stack space for the wire messages: the table's 40 coin messages fit without the heap.
constexpr size_t kScratchBytes = 8192;

absl::Status CoinsFromProto(const v1::MercadoCoins& in, absl::string_view what, CoinCounts* out) {
  const std::array<uint32_t, kCoinKinds> counts = {in.gold(),      in.silver(), in.copper(),
                                                   in.turquoise(), in.white(),  in.black()};
  for (int coin = 0; coin < kCoinKinds; ++coin) {
    if (counts[coin] > kCounterfeits)
      return Invalid(what, " holds ", counts[coin], " ", CoinName(coin), " coins, too many");
    (*out)[coin] = static_cast<uint8_t>(counts[coin]);
  }
  return absl::OkStatus();
}

template <typename Bits>
void BitsToList(Bits bits, int first_id, google::protobuf::RepeatedField<uint32_t>* out) {
  for (int i = 0; i < 32; ++i)
    if (bits >> i & 1) out->Add(first_id + i);
}

// Reads a list of tile ids of one deck into a bit set (bit = id - first_id).
absl::Status ListToBits(const google::protobuf::RepeatedField<uint32_t>& in, int first_id,
                        int count, absl::string_view what, uint32_t* out) {
  for (uint32_t id : in) {
    if (id < static_cast<uint32_t>(first_id) || id >= static_cast<uint32_t>(first_id + count))
      return Invalid(what, " lists tile ", id, ", which does not belong there");
    const uint32_t bit = uint32_t{1} << (id - first_id);
    if (*out & bit) return Invalid(what, " lists tile ", id, " twice");
    *out |= bit;
  }
  return absl::OkStatus();
}

absl::Status PrivilegesFromList(const google::protobuf::RepeatedField<uint32_t>& in,
                                absl::string_view what, PrivilegeCounts* out) {
  if (in.size() > kPrivileges) return Invalid(what, " lists too many privileges");
  for (uint32_t type : in) {
    if (type >= kPrivilegeTypes) return Invalid(what, " lists privilege type ", type);
    ++(*out)[type];
  }
  return absl::OkStatus();
}

void PrivilegesToList(const PrivilegeCounts& counts, google::protobuf::RepeatedField<uint32_t>* out) {
  for (int type = 0; type < kPrivilegeTypes; ++type)
    for (int i = 0; i < counts[type]; ++i) out->Add(type);
}

void TableToProto(const Data& data, v1::MercadoTable* out) {
  out->set_players(data.players);
  out->set_board_side(data.side == 0 ? v1::MERCADO_BOARD_SIDE_A : v1::MERCADO_BOARD_SIDE_B);
  out->set_start_space(data.start_space);
  out->set_phase(static_cast<v1::MercadoPhase>(data.phase));
  out->set_active_seat(data.active);
  out->set_extra_turns(data.extra_turns);
  out->set_end_triggered(data.end_triggered);
  out->set_idle_turns(data.idle_turns);
  out->set_privilege_extra(static_cast<v1::MercadoEffect>(data.privilege_extra));
  out->set_placed_this_turn(data.placed_this_turn);
  CoinsToProto(data.drawn, out->mutable_drawn());
  out->set_joker_in_hand(data.joker_in_hand);
  out->set_scoring_position(data.scoring_position);
  out->set_discarding_seat(data.discarder);
  for (int8_t tile : data.display) out->add_display(static_cast<uint32_t>(tile));
  BitsToList(data.item_discards, 0, out->mutable_item_discards());
  BitsToList(data.perfume_discards, kItems, out->mutable_perfume_discards());
  out->set_item_deck_size(std::popcount(data.item_deck));
  out->set_perfume_deck_size(std::popcount(data.perfume_deck));
  CoinsToProto(data.supply, out->mutable_supply());
  out->set_seal_supply(data.seal_supply);
  out->set_privilege_supply_size(PrivilegeCount(data.privilege_supply));
  PrivilegesToList(data.privileges_gone, out->mutable_privileges_gone());
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    auto* shown = out->add_seats();
    CoinsToProto(holder.bag, shown->mutable_bag());
    CoinsToProto(holder.person, shown->mutable_person_tile());
    for (const CoinCounts& edge : holder.edges) CoinsToProto(edge, shown->add_edges());
    shown->set_seals(holder.seals);
    shown->set_progress(holder.progress);
    shown->set_stack_height(holder.height);
    shown->set_privilege_count(PrivilegeCount(holder.privileges));
  }
}

// The turn: players, board, phase, whose turn and what it is in the middle of.
absl::Status DecodeTurn(const v1::MercadoTable& in, Data* data) {
  if (in.players() < 2 || in.players() > kMaxPlayers)
    return Invalid("players must be 2 to 4, not ", in.players());
  data->players = static_cast<uint8_t>(in.players());
  if (in.board_side() != v1::MERCADO_BOARD_SIDE_A && in.board_side() != v1::MERCADO_BOARD_SIDE_B)
    return Invalid("board side must be A or B, not ", static_cast<int>(in.board_side()));
  data->side = in.board_side() == v1::MERCADO_BOARD_SIDE_A ? 0 : 1;
  if (in.start_space() >= kSpaces) return Invalid("start space ", in.start_space(), " is not 0..29");
  data->start_space = static_cast<uint8_t>(in.start_space());
  if (in.phase() < v1::MERCADO_PHASE_PRIVILEGE || in.phase() > v1::MERCADO_PHASE_FINISHED)
    return Invalid("phase ", static_cast<int>(in.phase()), " is not a phase");
  data->phase = static_cast<Phase>(in.phase());
  if (in.active_seat() < 0 || in.active_seat() >= data->players)
    return Invalid("active seat ", in.active_seat(), " is not a seat");
  data->active = static_cast<int8_t>(in.active_seat());
  if (in.extra_turns() > 255) return Invalid("extra turns ", in.extra_turns(), " out of range");
  data->extra_turns = static_cast<uint8_t>(in.extra_turns());
  data->end_triggered = in.end_triggered();
  if (in.idle_turns() > static_cast<uint32_t>(IdleTurnLimit(data->players)))
    return Invalid("idle turns ", in.idle_turns(), " exceed the limit ",
                   IdleTurnLimit(data->players));
  data->idle_turns = static_cast<uint16_t>(in.idle_turns());
  if (in.privilege_extra() < 0 || in.privilege_extra() >= kEffectKinds)
    return Invalid("privilege extra ", static_cast<int>(in.privilege_extra()), " is not an effect");
  data->privilege_extra = static_cast<Effect>(in.privilege_extra());
  data->placed_this_turn = in.placed_this_turn();
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(in.drawn(), "the drawn coins", &data->drawn));
  data->joker_in_hand = in.joker_in_hand();
  if (in.scoring_position() < -1 || in.scoring_position() >= kPositions)
    return Invalid("scoring position ", in.scoring_position(), " out of range");
  data->scoring_position = static_cast<int8_t>(in.scoring_position());
  if (in.discarding_seat() < -1 || in.discarding_seat() >= data->players)
    return Invalid("discarding seat ", in.discarding_seat(), " is not a seat");
  data->discarder = static_cast<int8_t>(in.discarding_seat());
  return absl::OkStatus();
}

// The display and the discards; the decks follow from them.
absl::Status DecodeDisplay(const v1::MercadoTable& in, Data* data) {
  if (in.display_size() != kPositions)
    return Invalid("the display must list ", kPositions, " tiles, not ", in.display_size());
  for (int position = 0; position < kPositions; ++position) {
    if (in.display(position) >= kTiles)
      return Invalid("display position ", position, " holds tile ", in.display(position),
                     ", which does not exist");
    data->display[position] = static_cast<int8_t>(in.display(position));
  }
  uint32_t item_discards = 0, perfume_discards = 0;
  GAVEL_RETURN_IF_ERROR(ListToBits(in.item_discards(), 0, kItems, "the item discards", &item_discards));
  GAVEL_RETURN_IF_ERROR(ListToBits(in.perfume_discards(), kItems, kPerfumes, "the perfume discards", &perfume_discards));
  data->item_discards = item_discards;
  data->perfume_discards = static_cast<uint16_t>(perfume_discards);
  uint32_t item_shown = 0, perfume_shown = 0;
  for (int position = 0; position < kItemSlots; ++position)
    if (data->display[position] < kItems) item_shown |= uint32_t{1} << data->display[position];
  for (int position = kItemSlots; position < kOverseerPosition; ++position) {
    const int tile = data->display[position];
    if (tile >= kItems && tile < kOverseer) perfume_shown |= uint32_t{1} << (tile - kItems);
  }
  data->item_deck = kAllItems & ~item_shown & ~item_discards;
  data->perfume_deck = static_cast<uint16_t>(kAllPerfumes & ~perfume_shown & ~perfume_discards);
  if (in.item_deck_size() != static_cast<uint32_t>(std::popcount(data->item_deck)) ||
      in.perfume_deck_size() != static_cast<uint32_t>(std::popcount(data->perfume_deck)))
    return Invalid("the deck sizes do not match the display and the discards");
  return absl::OkStatus();
}

// The coin and seal supplies and the privileges played.
absl::Status DecodeSupplies(const v1::MercadoTable& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(in.supply(), "the supply", &data->supply));
  if (in.seal_supply() > kSeals) return Invalid("the seal supply holds ", in.seal_supply());
  data->seal_supply = static_cast<uint8_t>(in.seal_supply());
  GAVEL_RETURN_IF_ERROR(PrivilegesFromList(in.privileges_gone(), "the played privileges", &data->privileges_gone));
  return absl::OkStatus();
}

// One seat's bag, person tile, edges, seals, progress and privilege count.
absl::Status DecodeSeat(const v1::MercadoSeat& shown, int seat, SeatData& holder,
                        int* privilege_count) {
  const std::string who = absl::StrCat("seat ", seat, "'s ");
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.bag(), who + "bag", &holder.bag));
  GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.person_tile(), who + "person tile", &holder.person));
  if (shown.edges_size() != kPositions)
    return Invalid(who, "edges must list ", kPositions, " positions");
  for (int position = 0; position < kPositions; ++position) {
    GAVEL_RETURN_IF_ERROR(CoinsFromProto(shown.edges(position), absl::StrCat(who, "edge at position ", position),
                                         &holder.edges[position]));
  }
  if (shown.seals() > kSeals) return Invalid(who, "seals out of range");
  holder.seals = static_cast<uint8_t>(shown.seals());
  if (shown.progress() > kMaxProgress)
    return Invalid(who, "progress ", shown.progress(), " out of range");
  holder.progress = static_cast<uint8_t>(shown.progress());
  if (shown.stack_height() >= kMaxPlayers) return Invalid(who, "stack height out of range");
  holder.height = static_cast<uint8_t>(shown.stack_height());
  if (shown.privilege_count() > kPrivileges) return Invalid(who, "privilege count out of range");
  *privilege_count = static_cast<int>(shown.privilege_count());
  return absl::OkStatus();
}

// Decodes the public table (ranges only; Validate checks consistency). The decks follow
// from the display and the discards; `privilege_counts` receives each seat's count.
absl::Status DecodeTable(const v1::MercadoTable& in, Data* data,
                         std::array<int, kMaxPlayers>* privilege_counts) {
  GAVEL_RETURN_IF_ERROR(DecodeTurn(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeDisplay(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeSupplies(in, data));
  if (in.seats_size() != data->players)
    return Invalid("the table lists ", in.seats_size(), " seats for ", data->players, " players");
  int held = 0;
  for (int seat = 0; seat < data->players; ++seat) {
    GAVEL_RETURN_IF_ERROR(
        DecodeSeat(in.seats(seat), seat, data->seats[seat], &(*privilege_counts)[seat]));
    held += (*privilege_counts)[seat];
  }
  if (held + PrivilegeCount(data->privileges_gone) + static_cast<int64_t>(in.privilege_supply_size()) !=
      kPrivileges)
    return Invalid("held, played and supply privileges do not add up to ", kPrivileges);
  return absl::OkStatus();
}

// The privilege supply: every privilege not held by a seat and not gone.
absl::Status FillPrivilegeSupply(Data* data) {
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    int left = Privilege(type).count - data->privileges_gone[type];
    for (int seat = 0; seat < data->players; ++seat) left -= data->seats[seat].privileges[type];
    if (left < 0) return Invalid("there are too many privileges of type ", type);
    data->privilege_supply[type] = static_cast<uint8_t>(left);
  }
  return absl::OkStatus();
}

bool OptionalSymbolWaits(const Data& data) {
  const SeatData& mover = data.seats[data.active];
  if (mover.progress >= kSpaces) return false;
  for (int seat = 0; seat < data.players; ++seat)
    if (seat != data.active &&
        SpaceOf(data, data.seats[seat].progress) == SpaceOf(data, mover.progress))
      return false;
  return TheEdition().tracks[data.side][SpaceOf(data, mover.progress)] != kNoEffect;
}

class MercadoGameImpl final : public Game {
 public:
  MercadoGameImpl() {
    info_.name = "mercado";
    info_.display_name = "Mercado";
    info_.min_players = 2;
    info_.max_players = kMaxPlayers;
    info_.options.push_back(OptionSpec{"board_side",
                                       "Board side: A (introductory) or B (adds opp+F and opp+J)",
                                       {"A", "B"}, 0, 0, "A"});
    info_.options.push_back(OptionSpec{"start_space",
                                       "The space (0..29, clockwise from the top right) under "
                                       "the start tile",
                                       {}, 0, kSpaces - 1, "0"});
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeMercado(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed,
                                                const Options& options,
                                                EventSink* events) const override {
    Data data;
    data.players = static_cast<uint8_t>(players);
    data.side = options.Is("board_side", "A") ? 0 : 1;
    data.start_space = static_cast<uint8_t>(options.GetInt("start_space"));
    data.display.fill(-1);
    data.item_deck = kAllItems;
    data.perfume_deck = static_cast<uint16_t>(kAllPerfumes);
    data.supply[kBlack] = static_cast<uint8_t>(kCounterfeits - kCoinsPerColour * players);
    data.supply[kWhite] = kJokers;
    data.seal_supply = static_cast<uint8_t>(kSeals - players);
    for (int type = 0; type < kPrivilegeTypes; ++type)
      data.privilege_supply[type] = Privilege(type).count;
    for (int seat = 0; seat < players; ++seat) {
      SeatData& holder = data.seats[seat];
      for (int coin : {kGold, kSilver, kCopper, kTurquoise, kBlack})
        holder.bag[coin] = kCoinsPerColour;
      holder.seals = 1;
      holder.height = static_cast<uint8_t>(players - 1 - seat);  // seat 0 on top
    }
    data.rng = Rng::FromSeed(seed);
    auto state = std::make_unique<MercadoState>(data);
    state->Setup(events);
    return state;
  }

  absl::StatusOr<std::unique_ptr<State>> DecodeState(
      const google::protobuf::Any& any) const override {
    Scratch<v1::MercadoState, kScratchBytes> scratch;
    const v1::MercadoState& in = *scratch;
    GAVEL_RETURN_IF_ERROR(UnpackAny(any, scratch.get(), "the mercado state"));
    Data data;
    std::array<int, kMaxPlayers> counts{};
    GAVEL_RETURN_IF_ERROR(DecodeTable(in.table(), &data, &counts));
    if (in.privileges_size() != data.players)
      return Invalid("the state lists privileges of ", in.privileges_size(), " seats");
    for (int seat = 0; seat < data.players; ++seat) {
      PrivilegeCounts& held = data.seats[seat].privileges;
      GAVEL_RETURN_IF_ERROR(PrivilegesFromList(in.privileges(seat).types(), absl::StrCat("seat ", seat, "'s privileges"), &held));
      if (PrivilegeCount(held) != counts[seat])
        return Invalid("seat ", seat, " holds ", PrivilegeCount(held),
                       " privileges, but the table says ", counts[seat]);
    }
    GAVEL_RETURN_IF_ERROR(FillPrivilegeSupply(&data));
    data.rng = in.rng();
    GAVEL_RETURN_IF_ERROR(Validate(data));
    return std::unique_ptr<State>(std::make_unique<MercadoState>(data));
  }

  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
    v1::MercadoMove in;
    GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
    auto position = [](uint32_t p) -> absl::StatusOr<uint32_t> {
      if (p >= kPositions) return Invalid("display position ", p, " is not 0..7");
      return p;
    };
    auto type = [](uint32_t t) -> absl::StatusOr<uint32_t> {
      if (t >= kPrivilegeTypes) return Invalid("privilege type ", t, " is not 0..7");
      return t;
    };
    switch (in.move_case()) {
      case v1::MercadoMove::kNoPrivilege: return Move{kNoPrivilege};
      case v1::MercadoMove::kUseSymbol: return Move{kUseSymbol};
      case v1::MercadoMove::kSkipSymbol: return Move{kSkipSymbol};
      case v1::MercadoMove::kActionA: return Move{kActionA};
      case v1::MercadoMove::kActionB: return Move{kActionB};
      case v1::MercadoMove::kUseSeal: return Move{kUseSeal};
      case v1::MercadoMove::kNoSeal: return Move{kNoSeal};
      case v1::MercadoMove::kStop: return Move{kStop};
      case v1::MercadoMove::kPlayPrivilege: {
        GAVEL_ASSIGN_OR_RETURN(const int t, type(in.play_privilege().type()));
        return Move{kPlayPrivilegeBase + t};
      }
      case v1::MercadoMove::kDiscardPrivilege: {
        GAVEL_ASSIGN_OR_RETURN(const int t, type(in.discard_privilege().type()));
        return Move{kDiscardBase + t};
      }
      case v1::MercadoMove::kScore: {
        GAVEL_ASSIGN_OR_RETURN(const int p, position(in.score().position()));
        return Move{kScoreBase + p};
      }
      case v1::MercadoMove::kPlaceJoker: {
        GAVEL_ASSIGN_OR_RETURN(const int p, position(in.place_joker().position()));
        return Move{kPlaceJokerBase + p};
      }
      case v1::MercadoMove::kPlace: {
        GAVEL_ASSIGN_OR_RETURN(const int p, position(in.place().position()));
        const int coin = static_cast<int>(in.place().coin()) - 1;
        if (coin < 0 || coin >= kPlaceable)
          return Invalid("only gold, silver, copper, turquoise and white coins can be placed");
        return PlaceMove(coin, static_cast<int>(p));
      }
      case v1::MercadoMove::MOVE_NOT_SET:
        break;
    }
    return Invalid("the move names no decision");
  }

 private:
  GameInfo info_;
};

absl::Status ValidateDisplay(const Data& data) {
  uint32_t items = 0, perfumes = 0;
  for (int position = 0; position < kPositions; ++position) {
    const int tile = data.display[position];
    const bool ok = position < kItemSlots        ? tile >= 0 && tile < kItems
                    : position < kOverseerPosition ? tile >= kItems && tile < kOverseer
                    : position == kOverseerPosition ? tile == kOverseer
                                                    : tile == kChanger;
    if (!ok) return Invalid("display position ", position, " cannot hold tile ", tile);
    if (position < kItemSlots) {
      if (items >> tile & 1) return Invalid("item ", tile, " is displayed twice");
      items |= uint32_t{1} << tile;
    } else if (position < kOverseerPosition) {
      if (perfumes >> (tile - kItems) & 1) return Invalid("perfume ", tile, " is displayed twice");
      perfumes |= uint32_t{1} << (tile - kItems);
    }
  }
  if ((items & data.item_deck) || (items & data.item_discards) ||
      (data.item_deck & data.item_discards) ||
      (items | data.item_deck | data.item_discards) != kAllItems)
    return Invalid("the items are not each exactly once in the display, deck or discards");
  if ((perfumes & data.perfume_deck) || (perfumes & data.perfume_discards) ||
      (data.perfume_deck & data.perfume_discards) ||
      (perfumes | data.perfume_deck | data.perfume_discards) != kAllPerfumes)
    return Invalid("the perfumes are not each exactly once in the display, deck or discards");
  return absl::OkStatus();
}

absl::Status ValidateComponents(const Data& data) {
  int whites = data.supply[kWhite] + (data.joker_in_hand ? 1 : 0);  // drawn: with the active seat
  int blacks = data.supply[kBlack];
  int seals = data.seal_supply;
  for (int coin = 0; coin < kColoured; ++coin)
    if (data.supply[coin] != 0) return Invalid("there is no supply of ", CoinName(coin), " coins");
  if (data.drawn[kBlack] != 0) return Invalid("black coins are never held as drawn coins");
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    CoinCounts own = holder.bag;
    for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += holder.person[coin];
    for (const CoinCounts& edge : holder.edges) {
      if (edge[kBlack] != 0) return Invalid("seat ", seat, " has a black coin on an edge");
      for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += edge[coin];
    }
    if (seat == data.active)
      for (int coin = 0; coin < kCoinKinds; ++coin) own[coin] += data.drawn[coin];
    for (int coin = 0; coin < kColoured; ++coin)
      if (own[coin] != kCoinsPerColour)
        return Invalid("seat ", seat, " has ", static_cast<int>(own[coin]), " ", CoinName(coin),
                       " coins instead of ", kCoinsPerColour);
    whites += own[kWhite];
    blacks += own[kBlack];
    seals += holder.seals;
  }
  if (whites != kJokers) return Invalid("there are ", whites, " white coins instead of ", kJokers);
  if (blacks != kCounterfeits)
    return Invalid("there are ", blacks, " black coins instead of ", kCounterfeits);
  if (seals != kSeals) return Invalid("there are ", seals, " seals instead of ", kSeals);
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    int count = data.privilege_supply[type] + data.privileges_gone[type];
    for (int seat = 0; seat < data.players; ++seat) count += data.seats[seat].privileges[type];
    if (count != Privilege(type).count)
      return Invalid("there are ", count, " privileges of type ", type, " instead of ",
                     static_cast<int>(Privilege(type).count));
  }
  return absl::OkStatus();
}

absl::Status ValidateTrack(const Data& data) {
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& holder = data.seats[seat];
    if (holder.progress > kMaxProgress || holder.height >= kMaxPlayers)
      return Invalid("seat ", seat, "'s progress or stack height is out of range");
    if (holder.progress >= kSpaces && !data.end_triggered)
      return Invalid("seat ", seat, " has passed the start tile, but the end is not triggered");
    // The markers on one physical space are stacked at heights 0..m-1.
    uint32_t heights = 0;
    int on_space = 0;
    for (int other = 0; other < data.players; ++other) {
      if (SpaceOf(data, data.seats[other].progress) != SpaceOf(data, holder.progress)) continue;
      ++on_space;
      heights |= 1u << data.seats[other].height;
    }
    if (heights != (1u << on_space) - 1)
      return Invalid("the stack on space ", SpaceOf(data, holder.progress),
                     " does not have heights 0..", on_space - 1);
  }
  return absl::OkStatus();
}

// Every seat's coins on the display fit the prices, and only the scoring seat has completed a tile.
absl::Status ValidateEdges(const Data& data) {
  const Phase phase = data.phase;
  const bool may_complete = phase == Phase::kPlace || phase == Phase::kJoker ||
                            phase == Phase::kScore || phase == Phase::kDiscard;
  for (int seat = 0; seat < data.players; ++seat) {
    for (int position = 0; position < kPositions; ++position) {
      const Price& price = Tile(data.display[position]).price;
      const CoinCounts& edge = data.seats[seat].edges[position];
      if (!Fits(price, edge))
        return Invalid("seat ", seat, "'s coins on ", Tile(data.display[position]).name,
                       " do not fit its price");
      if (Completes(price, edge) && !(seat == data.active && may_complete))
        return Invalid("seat ", seat, " has completed ", Tile(data.display[position]).name,
                       " outside its scoring");
    }
  }
  return absl::OkStatus();
}

// Drawn coins, the joker, the scoring position, the discarder and the privilege extra exist
// only in the phases that use them.
absl::Status ValidateTurnParts(const Data& data) {
  const Phase phase = data.phase;
  const int drawn = CoinTotal(data.drawn);
  if (drawn > 5) return Invalid("at most 5 coins are drawn in a turn, not ", drawn);
  if (drawn > 0 && phase != Phase::kSeal && phase != Phase::kPlace)
    return Invalid("drawn coins only exist while sealing or placing");
  if (data.joker_in_hand != (phase == Phase::kJoker))
    return Invalid("the changer's joker is held exactly in the joker phase");
  if ((data.scoring_position >= 0) != (phase == Phase::kDiscard) ||
      (data.discarder >= 0) != (phase == Phase::kDiscard))
    return Invalid("a scoring position and a discarding seat exist exactly in the discard phase");
  if (data.privilege_extra != kNoEffect && phase != Phase::kSymbol)
    return Invalid("a privilege extra is only pending in the symbol phase");
  if (data.placed_this_turn &&
      (phase == Phase::kPrivilege || phase == Phase::kSymbol || phase == Phase::kAction ||
       phase == Phase::kSeal))
    return Invalid("no coin can have been placed yet in this phase");
  return absl::OkStatus();
}

bool AnyPending(const MercadoState& state) {
  for (int position = 0; position < kPositions; ++position)
    if (state.IsPending(position)) return true;
  return false;
}

absl::Status ValidateJoker(const MercadoState& state) {
  for (int position = 0; position < kPositions; ++position)
    if (position != kChangerPosition && state.CanPlace(kWhite, position)) return absl::OkStatus();
  return Invalid("the changer's joker fits nowhere");
}

absl::Status ValidateDiscard(const Data& data, const MercadoState& state) {
  const int position = data.scoring_position;
  if (position >= kOverseerPosition || !state.IsPending(position))
    return Invalid("the discard phase needs the completed goods tile being scored");
  const TileData& tile = Tile(data.display[position]);
  if (tile.opponents[0] != kOpponentsDiscard && tile.opponents[1] != kOpponentsDiscard)
    return Invalid("the ", tile.name, " makes nobody discard");
  if (data.discarder == data.active || PrivilegeCount(data.seats[data.discarder].privileges) == 0)
    return Invalid("seat ", static_cast<int>(data.discarder), " cannot discard now");
  return absl::OkStatus();
}

// The seat to move has a decision to make in its phase.
absl::Status ValidateDecision(const Data& data, const MercadoState& state) {
  const SeatData& active = data.seats[data.active];
  switch (data.phase) {
    case Phase::kPrivilege:
      if (PrivilegeCount(active.privileges) == 0)
        return Invalid("the privilege phase needs a privilege to play");
      break;
    case Phase::kSymbol:
      if (!OptionalSymbolWaits(data)) return Invalid("no symbol waits for the active seat");
      break;
    case Phase::kAction:
      if (CoinTotal(active.bag) < 3 && CoinTotal(active.person) == 0)
        return Invalid("the action phase needs a legal action");
      break;
    case Phase::kSeal:
      if (active.seals == 0 || CoinTotal(active.bag) == 0)
        return Invalid("the seal phase needs a seal and a coin in the bag");
      break;
    case Phase::kPlace:
      if (!state.CanPlaceAny()) return Invalid("the placement phase needs a placeable coin");
      break;
    case Phase::kJoker: return ValidateJoker(state);
    case Phase::kScore:
      if (!AnyPending(state)) return Invalid("the scoring phase needs a completed tile");
      break;
    case Phase::kDiscard: return ValidateDiscard(data, state);
    case Phase::kFinished:
      if (!data.end_triggered || AnyPending(state)) return Invalid("a finished game must have triggered its end");
      break;
  }
  return absl::OkStatus();
}

absl::Status ValidatePhase(const Data& data) {
  const MercadoState state(data);
  GAVEL_RETURN_IF_ERROR(ValidateEdges(data));
  GAVEL_RETURN_IF_ERROR(ValidateTurnParts(data));
  return ValidateDecision(data, state);
}

}  // namespace

absl::Status Validate(const Data& data) {
  if (data.players < 2 || data.players > kMaxPlayers) return Invalid("players out of range");
  if (data.side > 1 || data.start_space >= kSpaces) return Invalid("options out of range");
  if (data.active < 0 || data.active >= data.players) return Invalid("active seat out of range");
  if (data.idle_turns > IdleTurnLimit(data.players) ||
      (data.idle_turns == IdleTurnLimit(data.players) && !data.end_triggered))
    return Invalid("idle turns ", data.idle_turns, " do not fit the limit ",
                   IdleTurnLimit(data.players), " and the end trigger");
  if (data.phase < Phase::kPrivilege || data.phase > Phase::kFinished ||
      data.privilege_extra >= kEffectKinds)
    return Invalid("phase or privilege extra out of range");
  if (data.discarder < -1 || data.discarder >= data.players)
    return Invalid("discarding seat out of range");
  if (data.scoring_position < -1 || data.scoring_position >= kPositions)
    return Invalid("scoring position out of range");
  GAVEL_RETURN_IF_ERROR(ValidateDisplay(data));
  GAVEL_RETURN_IF_ERROR(ValidateComponents(data));
  GAVEL_RETURN_IF_ERROR(ValidateTrack(data));
  return ValidatePhase(data);
}

void MercadoState::Serialize(v1::GameState* out) const {
  Scratch<v1::MercadoState, kScratchBytes> scratch;
  v1::MercadoState& proto = *scratch;
  TableToProto(data_, proto.mutable_table());
  for (int seat = 0; seat < data_.players; ++seat)
    PrivilegesToList(data_.seats[seat].privileges, proto.add_privileges()->mutable_types());
  proto.set_rng(data_.rng);
  out->set_game("mercado");
  out->mutable_state()->PackFrom(proto);
}

void MercadoState::PackView(Seat viewer, google::protobuf::Any* out) const {
  Scratch<v1::MercadoView, kScratchBytes> scratch;
  v1::MercadoView& view = *scratch;
  TableToProto(data_, view.mutable_table());
  view.set_seat(viewer);
  view.set_to_move(to_move());
  if (viewer >= 0 && viewer < data_.players) {
    const PrivilegeCounts& own = data_.seats[viewer].privileges;
    for (int type = 0; type < kPrivilegeTypes; ++type) {
      for (int i = 0; i < own[type]; ++i) {
        auto* shown = view.add_own_privileges();
        shown->set_type(type);
        shown->set_value(Privilege(type).value);
        shown->set_extra(static_cast<v1::MercadoEffect>(Privilege(type).extra));
      }
    }
  }
  out->PackFrom(view);
}

absl::StatusOr<std::unique_ptr<State>> MercadoGameImpl::Resample(const v1::View& view_proto,
                                                                 uint64_t seed) const {
  v1::MercadoView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the mercado view"));
  Data data;
  std::array<int, kMaxPlayers> counts{};
  GAVEL_RETURN_IF_ERROR(DecodeTable(view.table(), &data, &counts));
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= data.players) return Invalid("the viewer ", viewer, " is not a seat");
  PrivilegeCounts& own = data.seats[viewer].privileges;
  if (view.own_privileges_size() > kPrivileges) return Invalid("too many own privileges");
  for (const v1::MercadoPrivilege& privilege : view.own_privileges()) {
    if (privilege.type() >= kPrivilegeTypes)
      return Invalid("the viewer's privilege type ", privilege.type(), " does not exist");
    ++own[privilege.type()];
  }
  if (PrivilegeCount(own) != counts[viewer])
    return Invalid("the viewer's privileges do not match its privilege count");
  // Unseen privileges: neither the viewer's nor gone. Deal the other seats' counts from them.
  PrivilegeCounts unseen{};
  int unseen_total = 0;
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    const int left = Privilege(type).count - own[type] - data.privileges_gone[type];
    if (left < 0) return Invalid("the view shows too many privileges of type ", type);
    unseen[type] = static_cast<uint8_t>(left);
    unseen_total += left;
  }
  Rng rng(Rng::FromSeed(seed));
  for (int seat = 0; seat < data.players; ++seat) {
    if (seat == viewer) continue;
    for (int i = 0; i < counts[seat]; ++i) {
      if (unseen_total == 0) return Invalid("the seats hold more privileges than exist");
      const int type = rng.PickWeighted(unseen.data(), kPrivilegeTypes, unseen_total);
      --unseen[type];
      --unseen_total;
      ++data.seats[seat].privileges[type];
    }
  }
  data.privilege_supply = unseen;
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MercadoState>(data));
}

const Game& MercadoGame() {
  static const MercadoGameImpl game;
  return game;
}

const Game& MercadoState::game() const { return MercadoGame(); }

}  // namespace gavel::mercado

GAVEL_REGISTER_GAME(mercado, mercado::MercadoGame)
