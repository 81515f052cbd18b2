// Morgenland's wire forms: full state, validation of untrusted states, the view filter,
// resampling from a view, move texts and decoding, and the game object with its options.
#include <algorithm>
#include <bit>
#include <initializer_list>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/core/registry.h"
#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {

absl::Status FeaturizeMorgenland(const v1::View& view, std::span<const Move> moves,
                                 Features* out);

namespace {

absl::Status Invalid(const auto&... parts) { return InvalidInput("morgenland", parts...); }

constexpr uint32_t kAllSpells = (1u << kSpells) - 1;

template <size_t N>
void ToProto(const std::array<uint8_t, N>& values, v1::MorgenlandUnits* out) {
  for (uint8_t value : values) out->add_units(value);
}

template <size_t N>
absl::Status FromProto(const v1::MorgenlandUnits& in, int max, absl::string_view what,
                       std::array<uint8_t, N>* out) {
  if (in.units_size() != static_cast<int>(N))
    return Invalid(what, " must list ", N, " entries, not ", in.units_size());
  for (size_t i = 0; i < N; ++i) {
    if (in.units(i) < 0 || in.units(i) > max)
      return Invalid(what, " entry ", i, " is ", in.units(i), ", outside 0..", max);
    (*out)[i] = static_cast<uint8_t>(in.units(i));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(int64_t value, int64_t low, int64_t high, absl::string_view what) {
  if (value < low || value > high) return Invalid(what, " is ", value, ", outside ", low, "..", high);
  return absl::OkStatus();
}

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
  if (in.shelves_size() != kKinds) return Invalid("there must be 5 caves");
  for (int kind = 0; kind < kKinds; ++kind)
    GAVEL_RETURN_IF_ERROR(FromProto(in.shelves(kind), kUnitsPerKind, "a cave's shelves", &data->shelves[kind]));
  GAVEL_RETURN_IF_ERROR(FromProto(in.bank(), kUnitsPerKind, "the bank", &data->bank));
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

template <typename Proto>
void EncodePublic(const Data& data, Proto* out) {
  out->set_players(data.players);
  out->set_pro(data.pro);
  out->set_choose_camel(data.choose_camel);
  out->set_scroll_power(data.scroll_power);
  out->set_max_rounds(data.max_rounds);
  out->set_phase(static_cast<v1::MorgenlandPhase>(data.phase));
  out->set_round(data.round);
  out->set_camel(data.camel);
  out->set_active(data.active);
  out->set_placer(data.placer);
  out->set_space(data.space);
  out->set_cursor(data.cursor);
  out->set_passes(data.passes);
  out->set_units_left(data.units_left);
  out->set_purpose(static_cast<v1::MorgenlandPurpose>(data.purpose));
  out->set_guard(data.guard);
  out->set_card(data.card);
  out->set_deck(data.deck);
  for (const auto& shelves : data.shelves) ToProto(shelves, out->add_shelves());
  ToProto(data.bank, out->mutable_bank());
  for (int i = 0; i < data.item_count; ++i) out->add_items(data.items[i]);
  out->set_kinds_used(data.kinds_used);
  out->set_discards(data.discards);
  out->set_tent_second(data.tent_second);
  out->set_taboo(data.taboo);
  out->set_spy(data.spy);
  out->set_last_first(data.last_first);
  for (int i = 0; i < data.pending_count; ++i) {
    const Pending& p = data.pending[i];
    auto* pending = out->add_pending();
    pending->set_spell(p.spell);
    pending->set_caster(p.caster);
    pending->set_copied(p.copied);
    pending->set_target(p.target);
    pending->set_asked(p.asked);
  }
  out->set_resume_seat(data.resume_seat);
  out->set_priority(data.priority);
  out->set_buyer(data.buyer);
  out->set_target_seat(data.target_seat);
  out->set_target_token(data.target_token);
  out->set_target_space(data.target_space);
}

void TokenToProto(const SeatData& s, int seat, int token, bool show, v1::MorgenlandToken* out) {
  out->set_seat(seat);
  out->set_index(show ? token : 0);
  out->set_value(show ? TokenValue(token) : 0);
  out->set_space(s.token_space[token]);
  out->set_face_up(s.face_up >> token & 1);
  out->set_copies(s.copies[token]);
}

// Decodes the artifact-holding fields of a seat (shared by state and view).
template <typename Proto>
absl::Status DecodeSeatPublic(const Proto& in, SeatData* s) {
  GAVEL_RETURN_IF_ERROR(FromProto(in.owned(), kArtifactsPerType, "owned artifacts", &s->owned));
  GAVEL_RETURN_IF_ERROR(FromProto(in.invoked(), 2, "invoked artifacts", &s->invoked));
  GAVEL_RETURN_IF_ERROR(FromProto(in.carpets(), 4, "carpets", &s->carpets));
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

}  // namespace

// ---------------------------------------------------------------------------
// Validate

namespace {

absl::Status ValidateSeats(const Data& data) {
  const int n = data.players;
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& s = data.seats[seat];
    std::array<int, kSpaces> room_tokens{};
    for (int token = 0; token < kTokens; ++token) {
      const int at = s.token_space[token];
      const bool up = s.face_up >> token & 1;
      if (at >= kRoom1 + n) return Invalid("seat ", seat, " has a token on a room not in play");
      if (!data.pro && (at == kTent || at == kDjinn))
        return Invalid("seat ", seat, " has a token on a closed space");
      if (at == kInHand && (up || s.copies[token] > 0))
        return Invalid("seat ", seat, "'s token in hand is face up or copied");
      if (s.copies[token] > 0 && (!up || at < 0))
        return Invalid("seat ", seat, "'s Double copy must sit on a face-up token on the board");
      if (s.copies[token] > 4) return Invalid("seat ", seat, " has too many Double copies");
      if (at >= 0) ++room_tokens[at];
    }
    for (int space = kRoom1; space < kSpaces; ++space)
      if (room_tokens[space] > kMaxRoomTokens) return Invalid("seat ", seat, " has more than 5 tokens in a room");
    for (int a = 0; a < kArtifactTypes; ++a)
      if (s.invoked[a] > s.owned[a]) return Invalid("seat ", seat, " invoked an artifact it does not own");
    if (InvokedCount(s) > ArtifactLimit(s)) return Invalid("seat ", seat, " invoked more artifacts than allowed");
    for (int other = 0; other < kMaxPlayers; ++other)
      if ((s.known_by[other] & ~s.spells) || (other >= n && s.known_by[other]) ||
          (other == seat && s.known_by[other]))
        return Invalid("seat ", seat, "'s known spells are inconsistent");
    if (!data.pro && (s.spells || s.parasite_uses || s.smuggler_spaces || s.scroll_spaces ||
                      InvokedCount(s) || s.djinn))
      return Invalid("seat ", seat, " uses magic in the basic game");
    if (s.smuggler_spaces & ~((1u << kTent) | (1u << kDjinn) | (1u << kMarket) | (1u << kCaravan)))
      return Invalid("seat ", seat, " smuggles outside the city");
    if ((s.scroll_spaces >> kGate & 1) || s.scroll_spaces >= (1u << (kRoom1 + n)))
      return Invalid("seat ", seat, " has a Scroll on an invalid space");
    for (int space = kRoom1 + n; space < kSpaces; ++space)
      if (s.carpets[space]) return Invalid("seat ", seat, " has a carpet on a room not in play");
    int carpets = 0;
    for (uint8_t c : s.carpets) carpets += c;
    if (carpets > s.invoked[kCarpet] + s.parasite_uses)
      return Invalid("seat ", seat, " has more carpets than it invoked");
  }
  return absl::OkStatus();
}

absl::Status ValidateConservation(const Data& data) {
  const int n = data.players;
  for (int kind = 0; kind < kKinds; ++kind) {
    int units = data.bank[kind];
    for (uint8_t shelf : data.shelves[kind]) units += shelf;
    for (int seat = 0; seat < n; ++seat) units += data.seats[seat].treasure[kind];
    if (units != kUnitsPerKind)
      return Invalid("there are ", units, " units of ", KindName(kind), " instead of 29");
  }
  std::array<int, kArtifactTypes> artifacts{};
  for (int a = 0; a < kArtifactTypes; ++a) artifacts[a] = data.box[a];
  for (int room = 0; room < kMaxPlayers; ++room) {
    if (room >= n && (data.stack_size[room] || data.face_up[room] >= 0))
      return Invalid("room ", room + 1, " is not in play but holds artifacts");
    if (data.stack_size[room] > (data.pro ? 5 : kMaxStack)) return Invalid("a stack is too high");
    for (int i = 0; i < kMaxStack; ++i) {
      const int a = data.stack[room][i];
      if ((i < data.stack_size[room]) != (a >= 0)) return Invalid("room ", room + 1, "'s stack is malformed");
      if (a >= 0) ++artifacts[a];
    }
    if (data.face_up[room] >= 0) {
      if (!data.pro) return Invalid("the basic game has no face-up artifacts");
      ++artifacts[data.face_up[room]];
    }
  }
  for (int seat = 0; seat < n; ++seat)
    for (int a = 0; a < kArtifactTypes; ++a) artifacts[a] += data.seats[seat].owned[a];
  for (int a = 0; a < kArtifactTypes; ++a) {
    if (artifacts[a] != kArtifactsPerType)
      return Invalid("there are ", artifacts[a], " ", ArtifactName(a), " artifacts instead of 5");
    if (data.pro && data.box[a] != kArtifactsPerType - n)
      return Invalid("the pro game leaves ", kArtifactsPerType - n, " of each artifact in the box");
  }
  // Spells: each card in exactly one place.
  uint32_t seen = 0;
  auto add = [&](uint32_t cards) {
    const bool overlap = (seen & cards) != 0;
    seen |= cards;
    return overlap;
  };
  bool overlap = add(data.spell_deck) | add(data.discards);
  for (int seat = 0; seat < n; ++seat) overlap |= add(data.seats[seat].spells);
  for (int8_t spell : data.tent)
    if (spell >= 0) overlap |= add(1u << spell);
  for (int i = 0; i < data.pending_count; ++i) overlap |= add(1u << data.pending[i].spell);
  if (overlap || seen != (data.pro ? kAllSpells : 0u))
    return Invalid("every spell card must be in exactly one place");
  return absl::OkStatus();
}

// The steps of ValidatePhase, each a group of facts one part of the round must satisfy; the
// checks run in the same order as the rules list them, so the first broken fact is reported.
bool AnyInHand(const Data& data, bool all) {
  bool any = false, every = true;
  for (int seat = 0; seat < data.players; ++seat)
    for (int8_t at : data.seats[seat].token_space) {
      any |= at == kInHand;
      every &= at == kInHand;
    }
  return all ? every : any;
}

bool HoldsTokenInHand(const SeatData& seat) {
  for (int8_t at : seat.token_space)
    if (at == kInHand) return true;
  return false;
}

const Pending* TopPending(const Data& data) {
  return data.pending_count ? &data.pending[data.pending_count - 1] : nullptr;
}

bool TopSpellIs(const Data& data, std::initializer_list<int> spells) {
  const Pending* top = TopPending(data);
  if (!top) return false;
  for (int spell : spells)
    if (top->spell == spell) return true;
  return false;
}

absl::Status ValidateProgress(const Data& data) {
  const bool finished = data.phase == Phase::kFinished;
  if (finished != (data.active < 0)) return Invalid("only a finished game has no seat to move");
  if (data.max_rounds > 0 && data.round > data.max_rounds) return Invalid("the round is past the limit");
  if (data.max_rounds > 0 && data.round == data.max_rounds && !finished)
    return Invalid("the round limit is reached but the game goes on");
  return absl::OkStatus();
}

absl::Status ValidateSetup(const Data& data) {
  const int n = data.players;
  if (data.phase == Phase::kPick) {
    if (!AnyInHand(data, /*all=*/true) || data.space != -1 || data.card != -1 || data.round != 0)
      return Invalid("setup must come before the first round");
    const int offset = OrderOf(data, data.active);
    for (int seat = 0; seat < n; ++seat) {
      const int picks = Total(data.seats[seat].start);
      const int order = OrderOf(data, seat);
      const bool ok = order < offset ? picks == 3 : order == offset ? picks < 3 : picks == 0;
      if (!ok || Total(data.seats[seat].treasure) != 0)
        return Invalid("seat ", seat, "'s starting picks do not fit the setup order");
    }
    if (data.camel != 0) return Invalid("seat 0 holds the camel during setup");
    return absl::OkStatus();
  }
  for (int seat = 0; seat < n; ++seat)
    if (Total(data.seats[seat].start) != 3) return Invalid("seat ", seat, " must have picked 3 starting units");
  if (data.phase != Phase::kFinished && data.card < 0) return Invalid("a round needs a treasure card");
  if (data.card >= 0 && (data.deck >> data.card & 1)) return Invalid("the treasure card is still in the deck");
  return absl::OkStatus();
}

// Placement, the tallied space, spells played during placement, the guard, the basic game.
absl::Status ValidatePlacement(const Data& data) {
  const Phase phase = data.phase;
  const bool tally = phase != Phase::kPick && phase != Phase::kPlace;
  if (phase == Phase::kPlace) {
    if (data.space != -1 || data.active != data.placer || data.pending_count)
      return Invalid("placement has no tallied space or pending spells");
    if (!HoldsTokenInHand(data.seats[data.active])) return Invalid("the placer has no token in hand");
  }
  // Spells may be played during placement too; everything else belongs to the tally.
  const bool spell_or_place = phase == Phase::kPlace || phase == Phase::kCounter ||
                              phase == Phase::kPay || phase == Phase::kTake ||
                              phase == Phase::kTax || phase == Phase::kChoose;
  if (tally && data.space < 0 && !spell_or_place) return Invalid("the tally has a space");
  if (data.space >= 0 && AnyInHand(data, /*all=*/false)) return Invalid("the tally needs every token placed");
  if (data.space < 0 && phase != Phase::kPlace && phase != Phase::kPick) {
    if (!HoldsTokenInHand(data.seats[data.placer]) || data.pending_count == 0)
      return Invalid("a spell during placement needs the placer's turn");
  }
  if ((data.space < kGate) != (data.guard == 0)) return Invalid("the guard is shown only from the gate on");
  if (!data.pro && (phase == Phase::kWindow || phase == Phase::kCounter || phase == Phase::kBuyer ||
                    phase == Phase::kChoose || phase == Phase::kTax || phase == Phase::kTent ||
                    data.taboo || data.spy || data.last_first || data.pending_count))
    return Invalid("the basic game has no magic");
  return absl::OkStatus();
}

// Pending spells and purposes belong to particular phases.
absl::Status ValidatePending(const Data& data) {
  const Phase phase = data.phase;
  const bool spell_phase = phase == Phase::kCounter || phase == Phase::kPay || phase == Phase::kTake ||
                           phase == Phase::kTax || phase == Phase::kChoose;
  if (data.pending_count && !spell_phase) return Invalid("pending spells outside a spell's phases");
  if (data.pending_count == 2 &&
      (data.pending[1].spell != kParasite || data.pending[1].copied != kCounterspell))
    return Invalid("only a Parasite copying Counterspell can answer a spell");
  for (int i = 0; i < data.pending_count; ++i)
    if (!PendingWellFormed(data, data.pending[i]))
      return Invalid("pending spell ", SpellName(data.pending[i].spell), " has malformed targets");
  if ((phase == Phase::kPay || phase == Phase::kTake) != (data.purpose != Purpose::kNone))
    return Invalid("units are paid or taken only with a purpose");
  if (data.purpose >= Purpose::kCharity && !TopPending(data)) return Invalid("a spell's payment needs its spell");
  return absl::OkStatus();
}

absl::Status ValidateCounter(const Data& data) {
  const Pending* top = TopPending(data);
  if (!top || top->asked >= data.players || SeatInOrder(data, top->asked) != data.active ||
      top->caster == data.active)
    return Invalid("the counter window asks the wrong seat");
  return absl::OkStatus();
}

absl::Status ValidateBribe(const Data& data) {
  const int n = data.players;
  const int strength = Strength(data, data.active, kGate);
  if (data.space != kGate || SeatInOrder(data, data.cursor % n) != data.active ||
      data.cursor >= n || strength < 1 || strength >= data.guard || data.seats[data.active].entered)
    return Invalid("no bribe is due from seat ", data.active);
  return absl::OkStatus();
}

// Whether a payment's purpose fits the state: the space or the spell that asks for it.
bool PaymentFits(const Data& data) {
  switch (data.purpose) {
    case Purpose::kBribe: return data.space == kGate;
    case Purpose::kDonation: return TopSpellIs(data, {kDonation, kSacrifice});
    case Purpose::kCityTax: return TopSpellIs(data, {kCityTax});
    case Purpose::kSultansTax: return TopSpellIs(data, {kSultansTax});
    case Purpose::kTeleport: return TopSpellIs(data, {kTeleport});
    case Purpose::kTrade:
      return TopSpellIs(data, {kTrade}) && data.target_seat >= 0 && data.target_seat != data.active &&
             data.target_token >= 0 && data.target_token < kKinds;
    default: return false;
  }
}

absl::Status ValidatePay(const Data& data) {
  const SeatData& mover = data.seats[data.active];
  const int usable = Total(mover.treasure) -
                     (data.purpose == Purpose::kTrade && data.target_token >= 0 && data.target_token < kKinds
                          ? mover.treasure[data.target_token]
                          : 0);
  if (data.units_left == 0 || usable == 0) return Invalid("nothing to pay");
  if (!PaymentFits(data)) return Invalid("the payment's purpose does not fit the state");
  if (data.purpose == Purpose::kBribe &&
      (data.cursor >= data.players || SeatInOrder(data, data.cursor) != data.active))
    return Invalid("the bribe is paid by the wrong seat");
  return absl::OkStatus();
}

absl::Status ValidateTake(const Data& data) {
  if (data.units_left == 0 || Total(data.bank) == 0 ||
      !(data.purpose == Purpose::kMarketTake ? data.space == kMarket
                                             : data.purpose == Purpose::kCharity && TopSpellIs(data, {kCharity})))
    return Invalid("nothing to take");
  return absl::OkStatus();
}

absl::Status ValidateTent(const Data& data) {
  if (data.space != kTent || data.tent[0] < 0) return Invalid("the tent decision needs drawn spells");
  if (data.tent_second == data.active) return Invalid("the tent's second is the winner");
  return absl::OkStatus();
}

// kOffer, kRoomPay and kBuyer: a purchase in a room, offered to the seats in rank order.
absl::Status ValidatePurchase(const Data& data) {
  if (!IsRoom(data.space)) return Invalid("purchases happen in rooms");
  const int room = data.space - kRoom1;
  if (data.pro ? data.face_up[room] < 0 : data.stack_size[room] == 0)
    return Invalid("nothing is for sale in ", SpaceName(data.space));
  std::array<int8_t, kMaxPlayers> order{};
  const int count = RankSpace(data, data.space, order);
  if (data.cursor >= count || order[data.cursor] != data.active)
    return Invalid("the offer goes to the wrong seat");
  const SeatData& mover = data.seats[data.active];
  if (data.phase == Phase::kRoomPay &&
      (data.item_count == 0 || !CanAssign(mover.treasure, data.items.data(), data.item_count, data.kinds_used)))
    return Invalid("the payment cannot be completed");
  if (data.phase == Phase::kBuyer && (data.buyer != data.active || data.item_count))
    return Invalid("the buyer window belongs to the buyer");
  return absl::OkStatus();
}

absl::Status ValidateChoose(const Data& data) {
  const Pending* top = TopPending(data);
  if (!TopSpellIs(data, {kMirage, kAbracadabra}) || !IsRoom(data.target_space) ||
      data.target_space >= kRoom1 + data.players || top->caster != data.active)
    return Invalid("a choice needs Mirage or Abracadabra");
  const int room = data.target_space - kRoom1;
  if (data.stack_size[room] == 0 && !(top->spell == kAbracadabra && data.face_up[room] >= 0))
    return Invalid("nothing to choose from");
  if (!(data.order_known[room] >> data.active & 1)) return Invalid("the chooser must see the stack");
  if (top->spell == kAbracadabra && (data.buyer != data.active || data.target_space != data.space))
    return Invalid("Abracadabra is the buyer's");
  return absl::OkStatus();
}

absl::Status ValidateTax(const Data& data) {
  const SeatData& mover = data.seats[data.active];
  if (!TopSpellIs(data, {kCityTax, kSultansTax}) || data.resume_seat >= data.players ||
      SeatInOrder(data, data.resume_seat) != data.active || TopPending(data)->caster == data.active ||
      TaxDue(data, data.active) < 1 || Total(mover.treasure) < TaxDue(data, data.active))
    return Invalid("no tax is due from seat ", data.active);
  return absl::OkStatus();
}

// What the seat to move must be deciding in each phase, phase by phase.
absl::Status ValidateDecision(const Data& data) {
  switch (data.phase) {
    case Phase::kWindow:
      if (data.pending_count) return Invalid("a tally window has no pending spell");
      return absl::OkStatus();
    case Phase::kCounter: return ValidateCounter(data);
    case Phase::kBribe: return ValidateBribe(data);
    case Phase::kPay: return ValidatePay(data);
    case Phase::kTake: return ValidateTake(data);
    case Phase::kMarket:
      if (data.space != kMarket) return Invalid("the market decision is at the MARKET");
      return absl::OkStatus();
    case Phase::kCaravan:
      if (data.space != kCaravan) return Invalid("the camel decision is at the CARAVAN");
      return absl::OkStatus();
    case Phase::kTent: return ValidateTent(data);
    case Phase::kOffer:
    case Phase::kRoomPay:
    case Phase::kBuyer: return ValidatePurchase(data);
    case Phase::kChoose: return ValidateChoose(data);
    case Phase::kTax: return ValidateTax(data);
    default: return absl::OkStatus();
  }
}

// Payment items, the buyer and what seats know of the rooms, outside the phases they belong to.
absl::Status ValidatePurchaseLeftovers(const Data& data) {
  const Phase phase = data.phase;
  if (phase != Phase::kOffer && phase != Phase::kRoomPay && phase != Phase::kBuyer &&
      phase != Phase::kChoose && data.item_count)
    return Invalid("payment items outside a purchase");
  if (data.buyer >= 0) {
    const bool buying = phase == Phase::kBuyer ||
                        (data.pending_count > 0 && data.pending[0].spell == kAbracadabra);
    const int room = data.space - kRoom1;
    if (!buying || !IsRoom(data.space) || data.face_up[room] < 0 || !data.pro)
      return Invalid("a buyer outside a purchase");
  }
  for (int room = 0; room < kMaxPlayers; ++room)
    if ((data.order_known[room] & ~data.set_known[room]) || data.set_known[room] >= (1u << data.players))
      return Invalid("room knowledge is inconsistent");
  return absl::OkStatus();
}

absl::Status ValidatePhase(const Data& data) {
  GAVEL_RETURN_IF_ERROR(ValidateProgress(data));
  GAVEL_RETURN_IF_ERROR(ValidateSetup(data));
  if (data.phase == Phase::kFinished) return absl::OkStatus();
  GAVEL_RETURN_IF_ERROR(ValidatePlacement(data));
  GAVEL_RETURN_IF_ERROR(ValidatePending(data));
  GAVEL_RETURN_IF_ERROR(ValidateDecision(data));
  return ValidatePurchaseLeftovers(data);
}

}  // namespace

absl::Status Validate(const Data& data) {
  GAVEL_RETURN_IF_ERROR(ValidateSeats(data));
  GAVEL_RETURN_IF_ERROR(ValidateConservation(data));
  return ValidatePhase(data);
}

// ---------------------------------------------------------------------------
// Serialize / Observe

void MorgenlandState::Serialize(v1::GameState* out) const {
  Scratch<v1::MorgenlandState> scratch;
  v1::MorgenlandState& proto = *scratch;
  EncodePublic(data_, &proto);
  for (int room = 0; room < data_.players; ++room) {
    auto* room_proto = proto.add_rooms();
    for (int i = 0; i < data_.stack_size[room]; ++i) room_proto->add_stack(data_.stack[room][i]);
    room_proto->set_face_up(data_.face_up[room]);
    proto.add_set_known(data_.set_known[room]);
    proto.add_order_known(data_.order_known[room]);
  }
  ToProto(data_.box, proto.mutable_box());
  proto.set_spell_deck(data_.spell_deck);
  for (int8_t spell : data_.tent) proto.add_tent(spell);
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& s = data_.seats[seat];
    auto* seat_proto = proto.add_seats();
    for (int token = 0; token < kTokens; ++token)
      TokenToProto(s, seat, token, true, seat_proto->add_tokens());
    ToProto(s.treasure, seat_proto->mutable_treasure());
    ToProto(s.start, seat_proto->mutable_start());
    ToProto(s.owned, seat_proto->mutable_owned());
    ToProto(s.invoked, seat_proto->mutable_invoked());
    ToProto(s.carpets, seat_proto->mutable_carpets());
    seat_proto->set_parasite_uses(s.parasite_uses);
    seat_proto->set_scroll_spaces(s.scroll_spaces);
    seat_proto->set_smuggler_spaces(s.smuggler_spaces);
    seat_proto->set_spells(s.spells);
    for (int other = 0; other < data_.players; ++other) seat_proto->add_known_by(s.known_by[other]);
    seat_proto->set_entered(s.entered);
    seat_proto->set_djinn(s.djinn);
  }
  proto.set_rng(data_.rng);
  out->set_game("morgenland");
  out->mutable_state()->PackFrom(proto);
}

namespace {

// The spells of `holder` every other seat knows: what a spectator may see of them.
uint32_t KnownToAll(const SeatData& holder, int holder_seat, int players) {
  uint32_t known = holder.spells;
  for (int seat = 0; seat < players; ++seat)
    if (seat != holder_seat) known &= holder.known_by[seat];
  return known;
}

}  // namespace

void MorgenlandState::PackView(Seat viewer, google::protobuf::Any* out) const {
  v1::MorgenlandView view;
  EncodePublic(data_, &view);
  view.set_seat(viewer);
  view.set_to_move(to_move());
  for (int room = 0; room < data_.players; ++room) {
    auto* room_view = view.add_rooms();
    room_view->set_stack_size(data_.stack_size[room]);
    room_view->set_face_up(data_.face_up[room]);
    room_view->set_set_known_by(data_.set_known[room]);
    room_view->set_order_known_by(data_.order_known[room]);
    if (viewer != kNoSeat && data_.set_known[room] >> viewer & 1) {
      std::vector<int> known(data_.stack[room].begin(), data_.stack[room].begin() + data_.stack_size[room]);
      const bool ordered = data_.order_known[room] >> viewer & 1;
      if (!ordered) std::sort(known.begin(), known.end());
      for (int a : known) room_view->add_known(a);
      room_view->set_order_known(ordered);
    }
  }
  if (data_.pro) ToProto(data_.box, view.mutable_box());
  view.set_spell_deck_count(std::popcount(data_.spell_deck));
  // Only the strongest sees the drawn cards before its choice.
  for (int8_t spell : data_.tent) view.add_tent(spell < 0 || viewer == data_.active ? spell : kSpells);
  const bool setup = data_.phase == Phase::kPick;
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& s = data_.seats[seat];
    const bool own = seat == viewer;
    auto* seat_view = view.add_seats();
    for (int token = 0; token < kTokens; ++token) {
      const bool up = s.face_up >> token & 1;
      if (own || up) {
        TokenToProto(s, seat, token, true, seat_view->add_tokens());
      } else if (s.token_space[token] != kInHand) {
        TokenToProto(s, seat, token, false, seat_view->add_tokens());
      }
    }
    // Others' hidden tokens are listed by space only, in space order.
    if (!own) {
      auto* tokens = seat_view->mutable_tokens();
      std::stable_sort(tokens->begin(), tokens->end(), [](const auto& a, const auto& b) {
        if (a.value() != b.value()) return a.value() < b.value();
        return a.space() < b.space();
      });
    }
    for (int kind = 0; kind < kKinds; ++kind)
      seat_view->mutable_treasure()->add_units(own ? s.treasure[kind] : s.treasure[kind] - (setup ? 0 : s.start[kind]));
    if (own) ToProto(s.start, seat_view->mutable_start());
    seat_view->set_treasure_total(Total(s.treasure));
    seat_view->set_picks(Total(s.start));
    ToProto(s.owned, seat_view->mutable_owned());
    ToProto(s.invoked, seat_view->mutable_invoked());
    ToProto(s.carpets, seat_view->mutable_carpets());
    seat_view->set_parasite_uses(s.parasite_uses);
    seat_view->set_scroll_spaces(s.scroll_spaces);
    seat_view->set_smuggler_spaces(s.smuggler_spaces);
    seat_view->set_spell_count(std::popcount(s.spells));
    seat_view->set_spells(own ? s.spells : viewer == kNoSeat ? KnownToAll(s, seat, data_.players) : s.known_by[viewer]);
    seat_view->set_entered(s.entered);
    seat_view->set_djinn(s.djinn);
    seat_view->set_artifacts(std::accumulate(s.owned.begin(), s.owned.end(), 0));
  }
  out->PackFrom(view);
}

// ---------------------------------------------------------------------------
// Game

namespace {

absl::Status DecodeSeatTokens(const v1::MorgenlandSeatState& in, int seat, SeatData* s) {
  if (in.tokens_size() != kTokens) return Invalid("seat ", seat, " must list its 8 tokens");
  for (int token = 0; token < kTokens; ++token) {
    const auto& t = in.tokens(token);
    if (t.index() != static_cast<uint32_t>(token) || t.value() != static_cast<uint32_t>(TokenValue(token)) || t.seat() != seat)
      return Invalid("seat ", seat, "'s token ", token, " is mislabelled");
    GAVEL_RETURN_IF_ERROR(CheckRange(t.space(), kSetAside, kSpaces - 1, "a token's space"));
    GAVEL_RETURN_IF_ERROR(CheckRange(t.copies(), 0, 4, "a token's copies"));
    s->token_space[token] = static_cast<int8_t>(t.space());
    if (t.face_up()) s->face_up |= static_cast<uint8_t>(1 << token);
    s->copies[token] = static_cast<uint8_t>(t.copies());
  }
  return absl::OkStatus();
}

// Starting picks of the other seats consistent with the public holdings: each seat picked 3,
// the picks of kind k sum to `column[k]`, and a seat's holding never goes negative.
// `budget` bounds the search, so that a contradictory view cannot make it run long.
bool DealStarts(const std::vector<int>& seats, int index, std::array<int, kKinds>& column,
                const std::array<std::array<int, kKinds>, kMaxPlayers>& low, Rng& rng,
                std::array<std::array<uint8_t, kKinds>, kMaxPlayers>& out, int& budget) {
  if (--budget < 0) return false;
  if (index == static_cast<int>(seats.size())) {
    for (int c : column)
      if (c != 0) return false;
    return true;
  }
  const int seat = seats[index];
  // Every composition of 3 into 5 kinds (35), tried from a random start.
  std::array<std::array<uint8_t, kKinds>, 35> options{};
  int count = 0;
  for (int a = 0; a <= 3; ++a)
    for (int b = 0; a + b <= 3; ++b)
      for (int c = 0; a + b + c <= 3; ++c)
        for (int d = 0; a + b + c + d <= 3; ++d)
          options[count++] = {static_cast<uint8_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(c),
                              static_cast<uint8_t>(d), static_cast<uint8_t>(3 - a - b - c - d)};
  rng.Shuffle(options.data(), count);
  for (int i = 0; i < count; ++i) {
    bool fits = true;
    for (int k = 0; k < kKinds; ++k)
      fits = fits && options[i][k] >= low[seat][k] && options[i][k] <= column[k];
    if (!fits) continue;
    for (int k = 0; k < kKinds; ++k) column[k] -= options[i][k];
    if (DealStarts(seats, index + 1, column, low, rng, out, budget)) {
      out[seat] = options[i];
      return true;
    }
    for (int k = 0; k < kKinds; ++k) column[k] += options[i][k];
  }
  return false;
}

// A full state being rebuilt from a view (ResampleAttempt), with what the steps pass on.
struct ResampleDraft {
  Data data;
  int viewer = 0;
  bool setup = false;
  std::array<std::array<int, kKinds>, kMaxPlayers> low{};  // units a seat must have picked
  std::array<int, kKinds> column{};       // units of each kind not yet accounted for
  uint32_t unseen_spells = 0;             // spells the viewer has not seen anywhere
  std::vector<int> others;                // seats whose starting picks are dealt later
  std::array<int, kMaxPlayers> hidden_spells{};
};

// A seat's tokens: the known ones as listed, the hidden ones given the free indices at random.
absl::Status ResampleTokens(const v1::MorgenlandSeatView& in, int seat, int viewer, SeatData& s,
                            Rng& rng) {
  s.token_space.fill(kInHand);
  if (in.tokens_size() > kTokens) return Invalid("seat ", seat, " lists too many tokens");
  uint8_t used = 0;
  std::vector<int> hidden_spaces;
  for (const auto& t : in.tokens()) {
    GAVEL_RETURN_IF_ERROR(CheckRange(t.space(), kSetAside, kSpaces - 1, "a token's space"));
    GAVEL_RETURN_IF_ERROR(CheckRange(t.copies(), 0, 4, "a token's copies"));
    if (t.value() == 0) {
      if (seat == viewer || t.face_up() || t.space() == kInHand || t.copies())
        return Invalid("only other seats' face-down tokens may be hidden");
      hidden_spaces.push_back(t.space());
      continue;
    }
    GAVEL_RETURN_IF_ERROR(CheckRange(t.index(), 0, kTokens - 1, "a token index"));
    const int token = static_cast<int>(t.index());
    if ((used >> token & 1) || t.value() != static_cast<uint32_t>(TokenValue(token)))
      return Invalid("seat ", seat, "'s tokens are inconsistent");
    used |= static_cast<uint8_t>(1 << token);
    s.token_space[token] = static_cast<int8_t>(t.space());
    if (t.face_up()) s.face_up |= static_cast<uint8_t>(1 << token);
    s.copies[token] = static_cast<uint8_t>(t.copies());
  }
  if (seat == viewer && used != 0xFF) return Invalid("the viewer's tokens must all be listed");
  std::vector<int> free_tokens;
  for (int token = 0; token < kTokens; ++token)
    if (!(used >> token & 1)) free_tokens.push_back(token);
  rng.Shuffle(free_tokens.data(), static_cast<int>(free_tokens.size()));
  for (size_t i = 0; i < hidden_spaces.size(); ++i)
    s.token_space[free_tokens[i]] = static_cast<int8_t>(hidden_spaces[i]);
  return absl::OkStatus();
}

// Another seat's treasure as far as it is public, its shown spells and how many are hidden;
// during setup its picks are drawn at once, later they are dealt for all seats together.
absl::Status ResampleOtherHoldings(const v1::MorgenlandSeatView& in, int seat, ResampleDraft& draft,
                                   Rng& rng) {
  SeatData& s = draft.data.seats[seat];
  for (int kind = 0; kind < kKinds; ++kind) {
    const int shown = in.treasure().units(kind);
    GAVEL_RETURN_IF_ERROR(CheckRange(shown, -3, kUnitsPerKind, "a seat's public treasure"));
    draft.low[seat][kind] = std::max(0, -shown);
    s.treasure[kind] = static_cast<uint8_t>(std::max(0, shown));  // corrected by DealOtherStarts
  }
  if (draft.setup) {
    for (uint32_t i = 0; i < in.picks(); ++i) ++s.start[rng.Below(kKinds)];
  } else {
    draft.others.push_back(seat);
  }
  s.spells = in.spells();
  s.known_by[draft.viewer] = in.spells();
  draft.unseen_spells &= ~s.spells;
  if (std::popcount(in.spells()) > static_cast<int>(in.spell_count()))
    return Invalid("seat ", seat, " shows too many spells");
  draft.hidden_spells[seat] = static_cast<int>(in.spell_count()) - std::popcount(in.spells());
  return absl::OkStatus();
}

absl::Status ResampleSeat(const v1::MorgenlandSeatView& in, int seat, ResampleDraft& draft, Rng& rng) {
  SeatData& s = draft.data.seats[seat];
  GAVEL_RETURN_IF_ERROR(DecodeSeatPublic(in, &s));
  if (in.spells() > kAllSpells || in.spell_count() > kSpells) return Invalid("seat ", seat, "'s spells are invalid");
  GAVEL_RETURN_IF_ERROR(ResampleTokens(in, seat, draft.viewer, s, rng));
  if (in.treasure().units_size() != kKinds) return Invalid("seat ", seat, "'s treasure is malformed");
  GAVEL_RETURN_IF_ERROR(CheckRange(in.picks(), 0, 3, "the starting picks"));
  const bool viewer = seat == draft.viewer;
  if (viewer) {
    GAVEL_RETURN_IF_ERROR(FromProto(in.treasure(), kUnitsPerKind, "the viewer's treasure", &s.treasure));
    GAVEL_RETURN_IF_ERROR(FromProto(in.start(), 3, "the viewer's starting picks", &s.start));
    s.spells = in.spells();
    draft.unseen_spells &= ~s.spells;
  } else {
    GAVEL_RETURN_IF_ERROR(ResampleOtherHoldings(in, seat, draft, rng));
  }
  if (!draft.setup || viewer)
    for (int kind = 0; kind < kKinds; ++kind)
      draft.column[kind] -= viewer ? s.treasure[kind] : in.treasure().units(kind);
  return absl::OkStatus();
}

// The other seats' starting picks, consistent with the units still unaccounted for.
absl::Status DealOtherStarts(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  for (int c : draft.column)
    if (c < 0) return Invalid("the public treasure exceeds the units in play");
  std::array<std::array<uint8_t, kKinds>, kMaxPlayers> starts{};
  int budget = 5000;
  if (!DealStarts(draft.others, 0, draft.column, draft.low, rng, starts, budget))
    return Invalid("no starting picks fit the view");
  for (int seat : draft.others) {
    SeatData& s = draft.data.seats[seat];
    s.start = starts[seat];
    for (int kind = 0; kind < kKinds; ++kind)
      s.treasure[kind] = static_cast<uint8_t>(view.seats(seat).treasure().units(kind) + starts[seat][kind]);
  }
  return absl::OkStatus();
}

// Others' unseen spells, hidden tent cards and the spell deck, from the unseen cards.
absl::Status DealSpells(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  Data& data = draft.data;
  std::vector<int> pool;
  for (int spell = 0; spell < kSpells; ++spell)
    if (draft.unseen_spells >> spell & 1) pool.push_back(spell);
  rng.Shuffle(pool.data(), static_cast<int>(pool.size()));
  size_t next = 0;
  for (int seat = 0; seat < data.players; ++seat) {
    for (int i = 0; i < draft.hidden_spells[seat]; ++i) {
      if (next >= pool.size()) return Invalid("the view's spell counts exceed the cards");
      data.seats[seat].spells |= 1u << pool[next++];
    }
  }
  for (int8_t& spell : data.tent) {
    if (spell != kSpells) continue;
    if (next >= pool.size()) return Invalid("the view's tent exceeds the cards");
    spell = static_cast<int8_t>(pool[next++]);
  }
  if (pool.size() - next != view.spell_deck_count()) return Invalid("the spell deck count does not fit");
  for (; next < pool.size(); ++next) data.spell_deck |= 1u << pool[next];
  return absl::OkStatus();
}

// One room as the viewer sees it: sizes, knowledge, and the artifacts it knows (shuffled when
// it does not know their order); `unknown` loses what is seen, `unknown_rooms` gets the room
// when the viewer does not know its set.
absl::Status ReadRoom(const v1::MorgenlandRoomView& r, int room, ResampleDraft& draft,
                      std::array<int, kArtifactTypes>& unknown, std::vector<int>& unknown_rooms, Rng& rng) {
  Data& data = draft.data;
  const int n = data.players;
  GAVEL_RETURN_IF_ERROR(CheckRange(r.stack_size(), 0, kMaxStack, "a stack size"));
  GAVEL_RETURN_IF_ERROR(CheckRange(r.face_up(), -1, kArtifactTypes - 1, "a face-up artifact"));
  data.stack_size[room] = static_cast<uint8_t>(r.stack_size());
  data.face_up[room] = static_cast<int8_t>(r.face_up());
  GAVEL_RETURN_IF_ERROR(CheckRange(r.set_known_by(), 0, (1 << n) - 1, "a room's knowledge"));
  GAVEL_RETURN_IF_ERROR(CheckRange(r.order_known_by(), 0, (1 << n) - 1, "a room's knowledge"));
  data.set_known[room] = static_cast<uint8_t>(r.set_known_by());
  data.order_known[room] = static_cast<uint8_t>(r.order_known_by());
  if (r.face_up() >= 0) --unknown[r.face_up()];
  const int viewer = draft.viewer;
  if (!(data.set_known[room] >> viewer & 1)) {
    if (r.known_size() != 0) return Invalid("the viewer cannot know room ", room + 1);
    unknown_rooms.push_back(room);
    return absl::OkStatus();
  }
  if (r.known_size() != static_cast<int>(r.stack_size()) ||
      r.order_known() != static_cast<bool>(data.order_known[room] >> viewer & 1))
    return Invalid("a room's known artifacts do not fit its stack");
  for (int i = 0; i < r.known_size(); ++i) {
    GAVEL_RETURN_IF_ERROR(CheckRange(r.known(i), 0, kArtifactTypes - 1, "a known artifact"));
    data.stack[room][i] = static_cast<int8_t>(r.known(i));
    --unknown[r.known(i)];
  }
  if (!r.order_known()) rng.Shuffle(data.stack[room].data(), r.known_size());
  return absl::OkStatus();
}

// Artifacts: known rooms keep what the viewer saw; the rest is re-dealt.
absl::Status DealArtifacts(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  Data& data = draft.data;
  const int n = data.players;
  if (view.rooms_size() != n) return Invalid("the view must list one room per player");
  std::array<int, kArtifactTypes> unknown{};
  for (int a = 0; a < kArtifactTypes; ++a) unknown[a] = kArtifactsPerType;
  if (data.pro) GAVEL_RETURN_IF_ERROR(FromProto(view.box(), kArtifactsPerType, "the box", &data.box));
  for (int a = 0; a < kArtifactTypes; ++a) {
    unknown[a] -= data.box[a];
    for (int seat = 0; seat < n; ++seat) unknown[a] -= data.seats[seat].owned[a];
  }
  std::vector<int> unknown_rooms;
  for (int room = 0; room < n; ++room)
    GAVEL_RETURN_IF_ERROR(ReadRoom(view.rooms(room), room, draft, unknown, unknown_rooms, rng));
  std::vector<int8_t> artifacts;
  for (int a = 0; a < kArtifactTypes; ++a) {
    if (unknown[a] < 0) return Invalid("the view shows too many ", ArtifactName(a), " artifacts");
    for (int i = 0; i < unknown[a]; ++i) artifacts.push_back(static_cast<int8_t>(a));
  }
  rng.Shuffle(artifacts.data(), static_cast<int>(artifacts.size()));
  size_t next = 0;
  for (int room : unknown_rooms) {
    for (int i = 0; i < data.stack_size[room]; ++i) {
      if (next >= artifacts.size()) return Invalid("the stacks exceed the artifacts");
      data.stack[room][i] = artifacts[next++];
    }
  }
  for (; next < artifacts.size(); ++next) {
    if (data.pro) return Invalid("the artifacts are not all accounted for");
    ++data.box[artifacts[next]];
  }
  return absl::OkStatus();
}

class MorgenlandGameImpl final : public Game {
 public:
  MorgenlandGameImpl() {
    info_.name = "morgenland";
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
                                                EventSink*) const override {
    Data data;
    data.players = static_cast<uint8_t>(players);
    data.pro = options.Is("rules", "pro");
    data.choose_camel = options.Is("caravanserai", "choose");
    data.scroll_power = options.Is("scroll_power", "on");
    data.max_rounds = static_cast<uint8_t>(options.GetInt("max_rounds"));
    data.bank.fill(kUnitsPerKind);
    data.deck = (1u << kCardsPerDeck) - 1;
    for (int seat = 0; seat < players; ++seat) data.seats[seat].token_space.fill(kInHand);
    for (auto& stack : data.stack) stack.fill(-1);
    data.face_up.fill(-1);
    Rng rng(Rng::FromSeed(seed));
    // Artifacts (rules §3.5).
    std::array<int8_t, 30> pool{};
    int pool_size = 0;
    const int per_stack = data.pro ? 5 : 6;
    for (int a = 0; a < kArtifactTypes; ++a) {
      const int in_play = data.pro ? players : kArtifactsPerType;
      for (int i = 0; i < in_play; ++i) pool[pool_size++] = static_cast<int8_t>(a);
      if (data.pro) data.box[a] = static_cast<uint8_t>(kArtifactsPerType - players);
    }
    if (data.pro) {
      for (int seat = 0; seat < players; ++seat) data.seats[seat].owned[kLamp] = 1;
      // Each seat's Lamp leaves the pool: the Lamps are the first `players` entries.
      std::copy(pool.begin() + players, pool.begin() + pool_size, pool.begin());
      pool_size -= players;
      data.spell_deck = kAllSpells;
    }
    rng.Shuffle(pool.data(), pool_size);
    int next = 0;
    for (int room = 0; room < players; ++room) {
      for (int i = 0; i < per_stack; ++i) data.stack[room][i] = pool[next++];
      data.stack_size[room] = static_cast<uint8_t>(per_stack);
    }
    for (; next < pool_size; ++next) ++data.box[pool[next]];
    data.rng = rng.state();
    data.phase = Phase::kPick;
    return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
  }

  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override {
    Scratch<v1::MorgenlandState> scratch;  // arena-backed: no allocation per repeated field
    v1::MorgenlandState& in = *scratch;
    GAVEL_RETURN_IF_ERROR(UnpackAny(any, &in, "the morgenland state"));
    Data data;
    GAVEL_RETURN_IF_ERROR(DecodePublic(in, &data));
    const int n = data.players;
    GAVEL_RETURN_IF_ERROR(DecodeRooms(in, &data));
    GAVEL_RETURN_IF_ERROR(FromProto(in.box(), kArtifactsPerType, "the box", &data.box));
    if (in.spell_deck() > kAllSpells) return Invalid("the spell deck names unknown spells");
    data.spell_deck = in.spell_deck();
    GAVEL_RETURN_IF_ERROR(DecodeTent(in.tent(), &data, false));
    for (int seat = 0; seat < n; ++seat) {
      const auto& seat_in = in.seats(seat);
      SeatData& s = data.seats[seat];
      GAVEL_RETURN_IF_ERROR(DecodeSeatTokens(seat_in, seat, &s));
      GAVEL_RETURN_IF_ERROR(FromProto(seat_in.treasure(), kUnitsPerKind, "a seat's treasure", &s.treasure));
      GAVEL_RETURN_IF_ERROR(FromProto(seat_in.start(), 3, "a seat's starting picks", &s.start));
      GAVEL_RETURN_IF_ERROR(DecodeSeatPublic(seat_in, &s));
      if (seat_in.spells() > kAllSpells) return Invalid("seat ", seat, " holds unknown spells");
      s.spells = seat_in.spells();
      if (seat_in.known_by_size() != n) return Invalid("seat ", seat, " must list known spells per seat");
      for (int other = 0; other < n; ++other) s.known_by[other] = seat_in.known_by(other);
    }
    data.rng = in.rng();
    GAVEL_RETURN_IF_ERROR(Validate(data));
    return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
  }

  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override {
    v1::MorgenlandMove in;
    GAVEL_RETURN_IF_ERROR(UnpackAny(detail, &in, "the move detail"));
    switch (in.move_case()) {
      case v1::MorgenlandMove::kKind:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.kind(), 0, kKinds - 1, "the kind"));
        return KindMove(in.kind());
      case v1::MorgenlandMove::kPass: return PassMove();
      case v1::MorgenlandMove::kAccept: return AcceptMove();
      case v1::MorgenlandMove::kNameSeat:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.name_seat(), 0, kMaxPlayers - 1, "the named seat"));
        return SeatMove(in.name_seat());
      case v1::MorgenlandMove::kPlace:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.place().token(), 0, kTokens - 1, "the token"));
        GAVEL_RETURN_IF_ERROR(CheckRange(in.place().space(), 0, kSpaces - 1, "the space"));
        return PlaceMove(static_cast<int>(in.place().token()), in.place().space());
      case v1::MorgenlandMove::kInvoke:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.invoke(), 0, kArtifactTypes - 1, "the artifact"));
        return InvokeMove(in.invoke());
      case v1::MorgenlandMove::kDoubleToken:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.double_token(), 0, kTokens - 1, "the token"));
        return DoubleMove(static_cast<int>(in.double_token()));
      case v1::MorgenlandMove::kCounter: return CounterMove();
      case v1::MorgenlandMove::kKeepSpell:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.keep_spell(), 0, kSpells - 1, "the spell"));
        return KeepMove(in.keep_spell());
      case v1::MorgenlandMove::kPickPosition:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.pick_position(), 0, kMaxStack, "the position"));
        return PickArtifactMove(static_cast<int>(in.pick_position()));
      case v1::MorgenlandMove::kSpell:
        GAVEL_RETURN_IF_ERROR(CheckRange(in.spell().spell(), 0, kSpells - 1, "the spell"));
        GAVEL_RETURN_IF_ERROR(CheckRange(in.spell().target(), 0, kSpellStride - 1, "the spell's target"));
        return SpellMove(in.spell().spell(), static_cast<int>(in.spell().target()));
      default:
        return Invalid("the move names no action");
    }
  }

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

}  // namespace

// Rebuilds a full state from a view: the viewer's own holdings as shown; other seats'
// face-down token values, starting picks and unseen spells, the unknown artifacts and the
// spell deck re-dealt at random.
absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::Resample(const v1::View& view_proto,
                                                                    uint64_t seed) const {
  v1::MorgenlandView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the morgenland view"));
  // A deal can contradict what the seats did (a payment under way needs fitting kinds):
  // such deals are drawn again.
  Rng rng(Rng::FromSeed(seed));
  absl::Status last;
  for (int attempt = 0; attempt < 64; ++attempt) {
    auto state = ResampleAttempt(view, rng);
    if (state.ok()) return state;
    if (attempt == 0) last = state.status();
  }
  return last;
}

absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::ResampleAttempt(
    const v1::MorgenlandView& view, Rng& rng) const {
  ResampleDraft draft;
  Data& data = draft.data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const int n = data.players;
  draft.viewer = view.seat();
  GAVEL_RETURN_IF_ERROR(CheckRange(draft.viewer, 0, n - 1, "the viewer"));
  GAVEL_RETURN_IF_ERROR(DecodeTent(view.tent(), &data, true));
  draft.setup = data.phase == Phase::kPick;
  for (int kind = 0; kind < kKinds; ++kind) {
    draft.column[kind] = kUnitsPerKind - data.bank[kind];
    for (uint8_t shelf : data.shelves[kind]) draft.column[kind] -= shelf;
  }
  draft.unseen_spells = data.pro ? kAllSpells & ~data.discards : 0;
  for (int i = 0; i < data.pending_count; ++i) draft.unseen_spells &= ~(1u << data.pending[i].spell);
  for (int8_t spell : data.tent)
    if (spell >= 0 && spell < kSpells) draft.unseen_spells &= ~(1u << spell);
  for (int seat = 0; seat < n; ++seat) GAVEL_RETURN_IF_ERROR(ResampleSeat(view.seats(seat), seat, draft, rng));
  if (!draft.setup) GAVEL_RETURN_IF_ERROR(DealOtherStarts(view, draft, rng));
  GAVEL_RETURN_IF_ERROR(DealSpells(view, draft, rng));
  GAVEL_RETURN_IF_ERROR(DealArtifacts(view, draft, rng));
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
}

const Game& MorgenlandGame() {
  static const MorgenlandGameImpl game;
  return game;
}

const Game& MorgenlandState::game() const { return MorgenlandGame(); }

// ---------------------------------------------------------------------------
// Move text and detail

std::string MorgenlandState::MoveText(Move move) const {
  const uint32_t id = move.id;
  if (id < kKinds) {
    const char* verb = data_.phase == Phase::kPick ? "pick" : data_.phase == Phase::kTake ? "take"
                       : data_.phase == Phase::kMarket ? "return" : "pay with";
    return absl::StrCat(verb, " ", KindName(static_cast<int>(id)));
  }
  if (id == kPassId) return "pass";
  if (id == kAcceptId) return "accept";
  if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) return absl::StrCat("camel to seat ", id - kSeatBase);
  if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens)
    return absl::StrCat("place ", TokenValue(static_cast<int>(id - kPlaceBase) / 15), " on ",
                        SpaceName(static_cast<int>(id - kPlaceBase) % 15));
  if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes)
    return absl::StrCat("invoke ", ArtifactName(static_cast<int>(id - kInvokeBase)));
  if (id >= kDoubleBase && id < kDoubleBase + kTokens)
    return absl::StrCat("Double on ", TokenValue(static_cast<int>(id - kDoubleBase)));
  if (id == kCounterId) return "Counterspell";
  if (id >= kKeepBase && id < kKeepBase + kSpells) return absl::StrCat("keep ", SpellName(static_cast<int>(id - kKeepBase)));
  if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) return absl::StrCat("pick artifact ", id - kPickArtifactBase);
  if (id >= kSpellBase && id < kMaxMoveId) return SpellMoveText(data_, move);
  return absl::StrCat("unknown move ", id);
}

void MorgenlandState::MoveDetail(Move move, google::protobuf::Any* detail) const {
  v1::MorgenlandMove proto;
  const uint32_t id = move.id;
  if (id < kKinds) proto.set_kind(static_cast<int>(id));
  else if (id == kPassId) proto.set_pass(true);
  else if (id == kAcceptId) proto.set_accept(true);
  else if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) proto.set_name_seat(static_cast<int>(id - kSeatBase));
  else if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens) {
    proto.mutable_place()->set_token((id - kPlaceBase) / 15);
    proto.mutable_place()->set_space(static_cast<int>(id - kPlaceBase) % 15);
  } else if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes) proto.set_invoke(static_cast<int>(id - kInvokeBase));
  else if (id >= kDoubleBase && id < kDoubleBase + kTokens) proto.set_double_token(id - kDoubleBase);
  else if (id == kCounterId) proto.set_counter(true);
  else if (id >= kKeepBase && id < kKeepBase + kSpells) proto.set_keep_spell(static_cast<int>(id - kKeepBase));
  else if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) proto.set_pick_position(id - kPickArtifactBase);
  else if (id >= kSpellBase && id < kMaxMoveId) {
    proto.mutable_spell()->set_spell(SpellOf(move));
    proto.mutable_spell()->set_target(TargetOf(move));
  }
  detail->PackFrom(proto);
}

}  // namespace gavel::morgenland

GAVEL_REGISTER_GAME(morgenland, morgenland::MorgenlandGame)
