// Validation of an untrusted decoded state: the seats, the conservation of every component,
// the progress and each phase's decision, each a check of its own.
#include "engine/morgenland/morgenland_wire.h"

namespace gavel::morgenland {

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
  bool overlap = add(data.spell_deck);
  overlap |= add(data.discards);
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

}  // namespace gavel::morgenland
