#pragma once
// Internal to engine/morgenland/: what the game object, the wire codec, the validation and
// the view filter share. Not part of the API (engine/morgenland/morgenland.h is).
#include <algorithm>
#include <array>
#include <bit>
#include <initializer_list>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {

// INVALID_ARGUMENT with the game's prefix: every decoding and validation error.
absl::Status Invalid(const auto&... parts) { return InvalidInput("morgenland", parts...); }

inline constexpr uint32_t kAllSpells = (1u << kSpells) - 1;

template <size_t N>
void ToProto(const std::array<uint8_t, N>& values, v1::MorgenlandUnits* out) {
  out->mutable_units()->Reserve(static_cast<int>(N));  // one allocation, not one per doubling
  for (uint8_t value : values) out->add_units(value);
}

// Entry `i` of a unit list, whichever form carried it: 0..max.
inline absl::Status SetUnit(int64_t value, size_t i, int max, absl::string_view what, uint8_t* out) {
  if (value < 0 || value > max) return Invalid(what, " entry ", i, " is ", value, ", outside 0..", max);
  *out = static_cast<uint8_t>(value);
  return absl::OkStatus();
}

template <size_t N>
absl::Status FromProto(const v1::MorgenlandUnits& in, int max, absl::string_view what,
                       std::array<uint8_t, N>* out) {
  if (in.units_size() != static_cast<int>(N))
    return Invalid(what, " must list ", N, " entries, not ", in.units_size());
  for (size_t i = 0; i < N; ++i) GAVEL_RETURN_IF_ERROR(SetUnit(in.units(i), i, max, what, &(*out)[i]));
  return absl::OkStatus();
}

// Format 3's unit lists: `N` bytes of `in` from `*at` into `out`, each at most `max`.
template <size_t N>
absl::Status FromBytes(absl::string_view in, size_t* at, int max, absl::string_view what,
                       std::array<uint8_t, N>* out) {
  for (size_t i = 0; i < N; ++i)
    GAVEL_RETURN_IF_ERROR(SetUnit(static_cast<uint8_t>(in[*at + i]), i, max, what, &(*out)[i]));
  *at += N;
  return absl::OkStatus();
}

// The caves' shelves and the bank as messages (a view, a state before format 3).
template <typename Proto>
absl::Status TreasuryMessagesFromProto(const Proto& in, Data* data) {
  if (in.shelves_size() != kKinds) return Invalid("there must be 5 caves");
  for (int kind = 0; kind < kKinds; ++kind)
    GAVEL_RETURN_IF_ERROR(FromProto(in.shelves(kind), kUnitsPerKind, "a cave's shelves", &data->shelves[kind]));
  return FromProto(in.bank(), kUnitsPerKind, "the bank", &data->bank);
}
inline absl::Status TreasuryUnitsFromProto(const v1::MorgenlandView& in, Data* data) {
  return TreasuryMessagesFromProto(in, data);
}
// A state's shelves, bank and box, in either form.
absl::Status TreasuryUnitsFromProto(const v1::MorgenlandState& in, Data* data);

// The caves' shelves and the bank as messages (a state before format 3; the view writes them
// with MessageWriter).
inline void TreasuryUnitsToProto(const Data& data, v1::MorgenlandState* out) {
  for (const auto& shelves : data.shelves) ToProto(shelves, out->add_shelves());
  ToProto(data.bank, out->mutable_bank());
}

absl::Status CheckRange(int64_t value, int64_t low, int64_t high, absl::string_view what);

// The round: players, variants, phase, whose turn, the tally, the treasure deck.
template <typename Proto>
absl::Status DecodeRound(const Proto& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(CheckRange(in.players(), 3, kMaxPlayers, "players"));
  const int n = static_cast<int>(in.players());
  data->players = static_cast<uint8_t>(n);
  data->pro = in.pro();
  data->choose_camel = in.choose_camel();
  data->scroll_power = in.scroll_power();
  GAVEL_RETURN_IF_ERROR(CheckRange(in.max_rounds(), 0, 99, "max_rounds"));
  data->max_rounds = static_cast<uint8_t>(in.max_rounds());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.phase(), 1, 16, "the phase"));
  data->phase = static_cast<Phase>(in.phase());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.round(), 0, 99, "the round"));
  data->round = static_cast<uint8_t>(in.round());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.camel(), 0, n - 1, "the camel's seat"));
  data->camel = static_cast<int8_t>(in.camel());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.active(), -1, n - 1, "the active seat"));
  data->active = static_cast<int8_t>(in.active());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.placer(), 0, n - 1, "the placer"));
  data->placer = static_cast<int8_t>(in.placer());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.space(), -1, kRoom1 + n - 1, "the tallied space"));
  data->space = static_cast<int8_t>(in.space());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.cursor(), 0, 16, "the cursor"));
  data->cursor = static_cast<uint8_t>(in.cursor());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.passes(), 0, n - 1, "the passes"));
  data->passes = static_cast<uint8_t>(in.passes());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.units_left(), 0, 10, "the units left"));
  data->units_left = static_cast<uint8_t>(in.units_left());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.purpose(), 0, 8, "the purpose"));
  data->purpose = static_cast<Purpose>(in.purpose());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.guard(), 0, 10, "the guard"));
  data->guard = static_cast<int8_t>(in.guard());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.card(), -1, kCardsPerDeck - 1, "the treasure card"));
  data->card = static_cast<int8_t>(in.card());
  if (in.deck() >= (1u << kCardsPerDeck)) return Invalid("the treasure deck names unknown cards");
  data->deck = static_cast<uint16_t>(in.deck());
  return absl::OkStatus();
}

// The caves, the bank and a payment under way.
template <typename Proto>
absl::Status DecodeTreasury(const Proto& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(TreasuryUnitsFromProto(in, data));
  if (in.items_size() > 16) return Invalid("too many payment items");
  data->item_count = static_cast<uint8_t>(in.items_size());
  for (int i = 0; i < in.items_size(); ++i) {
    GAVEL_RETURN_IF_ERROR(CheckRange(in.items(i), 1, 9, "a payment item"));
    data->items[i] = static_cast<uint8_t>(in.items(i));
  }
  GAVEL_RETURN_IF_ERROR(CheckRange(in.kinds_used(), 0, 31, "the kinds used"));
  data->kinds_used = static_cast<uint8_t>(in.kinds_used());
  return absl::OkStatus();
}

// Discarded, covering and pending spells.
template <typename Proto>
absl::Status DecodeMagic(const Proto& in, Data* data) {
  const int n = data->players;
  if (in.discards() > kAllSpells) return Invalid("the discards name unknown spells");
  data->discards = in.discards();
  GAVEL_RETURN_IF_ERROR(CheckRange(in.tent_second(), -1, n - 1, "the tent's second"));
  data->tent_second = static_cast<int8_t>(in.tent_second());
  // Taboo! may return through a reshuffle at the TENT and cover a second space.
  if (in.taboo() >= (1u << (kRoom1 + n)) || (in.taboo() >> kGate & 1))
    return Invalid("Taboo! covers a space it cannot cover");
  data->taboo = static_cast<uint16_t>(in.taboo());
  if (in.spy() >= (1u << n)) return Invalid("the spy mask names unknown seats");
  data->spy = static_cast<uint8_t>(in.spy());
  data->last_first = in.last_first();
  if (in.pending_size() > 2) return Invalid("at most 2 spells can be pending");
  data->pending_count = static_cast<uint8_t>(in.pending_size());
  for (int i = 0; i < in.pending_size(); ++i) {
    const auto& p = in.pending(i);
    GAVEL_RETURN_IF_ERROR(CheckRange(p.spell(), 0, kSpells - 1, "a pending spell"));
    GAVEL_RETURN_IF_ERROR(CheckRange(p.caster(), 0, n - 1, "a pending spell's caster"));
    GAVEL_RETURN_IF_ERROR(CheckRange(p.copied(), -1, kArtifactTypes - 1, "a pending spell's copy"));
    GAVEL_RETURN_IF_ERROR(CheckRange(p.target(), 0, kSpellStride - 1, "a pending spell's target"));
    GAVEL_RETURN_IF_ERROR(CheckRange(p.asked(), 0, n, "a pending spell's counter progress"));
    data->pending[i] = Pending{static_cast<int8_t>(p.spell()), static_cast<int8_t>(p.caster()),
                               static_cast<int8_t>(p.copied()), static_cast<uint16_t>(p.target()),
                               static_cast<uint8_t>(p.asked())};
  }
  return absl::OkStatus();
}

// The seats and spaces a decision refers to, and the seat list's length.
template <typename Proto>
absl::Status DecodeTargets(const Proto& in, Data* data) {
  const int n = data->players;
  GAVEL_RETURN_IF_ERROR(CheckRange(in.resume_seat(), 0, n, "the resume seat"));
  data->resume_seat = static_cast<int8_t>(in.resume_seat());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.priority(), 0, n - 1, "the priority seat"));
  data->priority = static_cast<int8_t>(in.priority());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.buyer(), -1, n - 1, "the buyer"));
  data->buyer = static_cast<int8_t>(in.buyer());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.target_seat(), -1, n - 1, "the target seat"));
  data->target_seat = static_cast<int8_t>(in.target_seat());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.target_token(), -1, kTokens - 1, "the target token"));
  data->target_token = static_cast<int8_t>(in.target_token());
  GAVEL_RETURN_IF_ERROR(CheckRange(in.target_space(), -1, kSpaces - 1, "the target space"));
  data->target_space = static_cast<int8_t>(in.target_space());
  if (in.seats_size() != n) return Invalid("the state lists ", in.seats_size(), " seats for ", n, " players");
  return absl::OkStatus();
}

// The fields a state and a view share, in the order of the message.
template <typename Proto>
absl::Status DecodePublic(const Proto& in, Data* data) {
  GAVEL_RETURN_IF_ERROR(DecodeRound(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeTreasury(in, data));
  GAVEL_RETURN_IF_ERROR(DecodeMagic(in, data));
  return DecodeTargets(in, data);
}

// The fields a state and a view share, written by MessageWriter in three runs, so that each
// message's own fields go between them in field-number order (MorgenlandState: the rng
// between the middle and the targets; MorgenlandView: the viewer's seat after `players`, the
// rooms before the middle, whose spell-deck field each names, and the seat to move before
// the targets). The bytes protobuf writes for these fields.
template <typename Proto, typename AfterPlayers>
void WritePublicHead(const Data& data, MessageWriter& out, const AfterPlayers& after_players) {
  out.UInt32(Proto::kPlayersFieldNumber, data.players);
  after_players(out);
  out.Bool(Proto::kProFieldNumber, data.pro);
  out.Bool(Proto::kChooseCamelFieldNumber, data.choose_camel);
  out.Bool(Proto::kScrollPowerFieldNumber, data.scroll_power);
  out.UInt32(Proto::kMaxRoundsFieldNumber, data.max_rounds);
  out.Int32(Proto::kPhaseFieldNumber, static_cast<int32_t>(data.phase));
  out.UInt32(Proto::kRoundFieldNumber, data.round);
  out.Int32(Proto::kCamelFieldNumber, data.camel);
  out.Int32(Proto::kActiveFieldNumber, data.active);
  out.Int32(Proto::kPlacerFieldNumber, data.placer);
  out.Int32(Proto::kSpaceFieldNumber, data.space);
  out.UInt32(Proto::kCursorFieldNumber, data.cursor);
  out.UInt32(Proto::kPassesFieldNumber, data.passes);
  out.UInt32(Proto::kUnitsLeftFieldNumber, data.units_left);
  out.Int32(Proto::kPurposeFieldNumber, static_cast<int32_t>(data.purpose));
  out.Int32(Proto::kGuardFieldNumber, data.guard);
  out.Int32(Proto::kCardFieldNumber, data.card);
  out.UInt32(Proto::kDeckFieldNumber, data.deck);
}

inline constexpr size_t kPendingBytes = 5 * MessageWriter::ScalarBytes();

// `spell_deck`: the message's spell-deck field and its value; `tent`: the tent as shown.
template <typename Proto>
void WritePublicMiddle(const Data& data, MessageWriter& out, std::pair<int, uint32_t> spell_deck,
                       const std::array<int8_t, 2>& tent) {
  out.Packed(Proto::kItemsFieldNumber, std::span<const uint8_t>(data.items.data(), data.item_count));
  out.UInt32(Proto::kKindsUsedFieldNumber, data.kinds_used);
  out.UInt32(spell_deck.first, spell_deck.second);
  out.UInt32(Proto::kDiscardsFieldNumber, data.discards);
  out.Packed(Proto::kTentFieldNumber, tent);
  out.Int32(Proto::kTentSecondFieldNumber, data.tent_second);
  out.UInt32(Proto::kTabooFieldNumber, data.taboo);
  out.UInt32(Proto::kSpyFieldNumber, data.spy);
  out.Bool(Proto::kLastFirstFieldNumber, data.last_first);
  for (int i = 0; i < data.pending_count; ++i) {
    const Pending& p = data.pending[i];
    out.ShortMessage<kPendingBytes>(Proto::kPendingFieldNumber, [&](MessageWriter& pending) {
      pending.Int32(v1::MorgenlandPending::kSpellFieldNumber, p.spell);
      pending.Int32(v1::MorgenlandPending::kCasterFieldNumber, p.caster);
      pending.Int32(v1::MorgenlandPending::kCopiedFieldNumber, p.copied);
      pending.UInt32(v1::MorgenlandPending::kTargetFieldNumber, p.target);
      pending.UInt32(v1::MorgenlandPending::kAskedFieldNumber, p.asked);
    });
  }
  out.Int32(Proto::kResumeSeatFieldNumber, data.resume_seat);
}

template <typename Proto>
void WritePublicTargets(const Data& data, MessageWriter& out) {
  out.Int32(Proto::kPriorityFieldNumber, data.priority);
  out.Int32(Proto::kBuyerFieldNumber, data.buyer);
  out.Int32(Proto::kTargetSeatFieldNumber, data.target_seat);
  out.Int32(Proto::kTargetTokenFieldNumber, data.target_token);
  out.Int32(Proto::kTargetSpaceFieldNumber, data.target_space);
}

// The most bytes the three runs write.
inline constexpr size_t kPublicBytes = 33 * MessageWriter::ScalarBytes() +
                                       MessageWriter::PackedBytes(std::tuple_size_v<decltype(Data::items)>) +
                                       MessageWriter::PackedBytes(2) +
                                       std::tuple_size_v<decltype(Data::pending)> * MessageWriter::MessageBytes(kPendingBytes);


void TokenToProto(const SeatData& s, int seat, int token, bool show, v1::MorgenlandToken* out);

// A seat's owned, invoked and carpets lists as messages (a view, a state before format 3).
template <typename Proto>
absl::Status ArtifactUnitsFromProto(const Proto& in, SeatData* s) {
  GAVEL_RETURN_IF_ERROR(FromProto(in.owned(), kArtifactsPerType, "owned artifacts", &s->owned));
  GAVEL_RETURN_IF_ERROR(FromProto(in.invoked(), 2, "invoked artifacts", &s->invoked));
  return FromProto(in.carpets(), 4, "carpets", &s->carpets);
}
inline absl::Status SeatUnitsFromProto(const v1::MorgenlandSeatView& in, SeatData* s) {
  return ArtifactUnitsFromProto(in, s);
}
// A state's seat: its treasure and starting picks too, in either form.
absl::Status SeatUnitsFromProto(const v1::MorgenlandSeatState& in, SeatData* s);

// Decodes the artifact-holding fields of a seat (shared by state and view).
template <typename Proto>
absl::Status DecodeSeatPublic(const Proto& in, SeatData* s) {
  GAVEL_RETURN_IF_ERROR(SeatUnitsFromProto(in, s));
  GAVEL_RETURN_IF_ERROR(CheckRange(in.parasite_uses(), 0, 3, "Parasite uses"));
  s->parasite_uses = static_cast<uint8_t>(in.parasite_uses());
  if (in.scroll_spaces() >= (1u << kSpaces) || in.smuggler_spaces() >= (1u << kSpaces))
    return Invalid("a seat's space masks name unknown spaces");
  s->scroll_spaces = static_cast<uint16_t>(in.scroll_spaces());
  s->smuggler_spaces = static_cast<uint16_t>(in.smuggler_spaces());
  s->entered = in.entered();
  s->djinn = in.djinn();
  return absl::OkStatus();
}

absl::Status FeaturizeMorgenland(const v1::View& view, std::span<const Move> moves,
                                 Features* out);

class MorgenlandGameImpl final : public Game {
 public:
  MorgenlandGameImpl() {
    info_.name = "morgenland";
    info_.state_type_url = TypeUrl<v1::MorgenlandState>();
    info_.display_name = "Morgenland";
    info_.min_players = 3;
    info_.max_players = 5;
    info_.options = {
        OptionSpec{"rules", "pro: artifact powers and spells; basic: the introductory game",
                   {"pro", "basic"}, 0, 0, "pro"},
        OptionSpec{"caravanserai", "take: the CARAVAN winner takes the camel; choose: it names the holder",
                   {"take", "choose"}, 0, 0, "take"},
        OptionSpec{"scroll_power", "on: an invoked Scroll also wins ties in one space",
                   {"on", "off"}, 0, 0, "on"},
        OptionSpec{"max_rounds", "the game ends after this many rounds (0: no limit)", {}, 0, 99, "40"},
    };
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view, uint64_t seed) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves, Features* out) const override {
    return FeaturizeMorgenland(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override;
  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override;
  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override;

 private:
  template <typename Proto>
  static absl::Status DecodeTent(const Proto& tent, Data* data, bool allow_hidden) {
    if (tent.size() != 2) return Invalid("the tent lists 2 entries");
    for (int i = 0; i < 2; ++i) {
      GAVEL_RETURN_IF_ERROR(CheckRange(tent[i], -1, allow_hidden ? kSpells : kSpells - 1, "a tent card"));
      data->tent[i] = static_cast<int8_t>(tent[i]);
    }
    if (data->tent[0] < 0 && data->tent[1] >= 0) return Invalid("the tent's first card is missing");
    if (data->tent[0] >= 0 && data->tent[0] == data->tent[1] && data->tent[0] < kSpells)
      return Invalid("the tent holds one card twice");
    if ((data->tent[0] >= 0) != (data->phase == Phase::kTent)) return Invalid("tent cards only at the tent decision");
    return absl::OkStatus();
  }

  static absl::Status DecodeRooms(const v1::MorgenlandState& in, Data* data) {
    const int n = data->players;
    if (in.rooms_size() != n || in.set_known_size() != n || in.order_known_size() != n)
      return Invalid("the state must list one room per player");
    for (auto& stack : data->stack) stack.fill(-1);
    data->face_up.fill(-1);
    for (int room = 0; room < n; ++room) {
      const auto& r = in.rooms(room);
      if (r.stack_size() > kMaxStack) return Invalid("room ", room + 1, "'s stack is too high");
      for (int i = 0; i < r.stack_size(); ++i) {
        GAVEL_RETURN_IF_ERROR(CheckRange(r.stack(i), 0, kArtifactTypes - 1, "an artifact"));
        data->stack[room][i] = static_cast<int8_t>(r.stack(i));
      }
      data->stack_size[room] = static_cast<uint8_t>(r.stack_size());
      GAVEL_RETURN_IF_ERROR(CheckRange(r.face_up(), -1, kArtifactTypes - 1, "a face-up artifact"));
      data->face_up[room] = static_cast<int8_t>(r.face_up());
      GAVEL_RETURN_IF_ERROR(CheckRange(in.set_known(room), 0, (1 << n) - 1, "a room's knowledge"));
      GAVEL_RETURN_IF_ERROR(CheckRange(in.order_known(room), 0, (1 << n) - 1, "a room's knowledge"));
      data->set_known[room] = static_cast<uint8_t>(in.set_known(room));
      data->order_known[room] = static_cast<uint8_t>(in.order_known(room));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<State>> ResampleAttempt(const v1::MorgenlandView& view,
                                                         Rng& rng) const;
  GameInfo info_;
};

}  // namespace gavel::morgenland
