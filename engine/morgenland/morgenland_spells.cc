// The 21 spells (rules §6.4, §6.5): one rule per spell with its target range, its legality
// (timing and targets) and its resolution.
#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {
namespace {

// ---------------------------------------------------------------------------
// Timing and target helpers

bool AnyWindow(const Data& data) {
  return data.phase == Phase::kPlace || data.phase == Phase::kWindow;
}
bool TallyWindow(const Data& data) { return data.phase == Phase::kWindow; }

// Spells act only on untallied spaces in play, never on the GATE (rules §6.1).
bool Untallied(const Data& data, int space) {
  return space >= 0 && space < kRoom1 + data.players && space != kGate &&
         (data.space < 0 || space >= data.space);
}

bool TokenOnUntallied(const Data& data, int seat, int token) {
  return Untallied(data, data.seats[seat].token_space[token]);
}

bool LegalDestination(const Data& data, int owner, int token, int dest) {
  return Untallied(data, dest) && dest != data.seats[owner].token_space[token] &&
         SpaceOpenFor(data, owner, dest);
}

// A token reference (see morgenland.proto): 15*(9*seat + slot) + space.
constexpr int kSlots = kTokens + 1;
constexpr int kTokenRefs = kMaxPlayers * kSlots * kSpaces;
struct TokenRef {
  int seat, slot, space;
};
TokenRef DecodeRef(int ref) { return {ref / kSpaces / kSlots, ref / kSpaces % kSlots, ref % kSpaces}; }

bool HasFaceDownToken(const Data& data, int seat, int space) {
  const SeatData& s = data.seats[seat];
  for (int token = 0; token < kTokens; ++token)
    if (s.token_space[token] == space && !(s.face_up >> token & 1)) return true;
  return false;
}

// Whether `caster` may name this token: its own by index, others' face-up ones by index,
// others' face-down ones only as "one of them".
bool TokenRefLegal(const Data& data, int caster, int ref) {
  const TokenRef r = DecodeRef(ref);
  if (r.seat >= data.players || !Untallied(data, r.space)) return false;
  if (r.slot == kTokens) return r.seat != caster && HasFaceDownToken(data, r.seat, r.space);
  const SeatData& s = data.seats[r.seat];
  return s.token_space[r.slot] == r.space && (r.seat == caster || (s.face_up >> r.slot & 1));
}

// The token a reference names now, or -1; a face-down one is drawn at random.
int ResolveRef(MorgenlandState& state, int caster, int ref) {
  Data& data = state.mutable_data();
  if (!TokenRefLegal(data, caster, ref)) return -1;
  const TokenRef r = DecodeRef(ref);
  if (r.slot < kTokens) return r.slot;
  std::array<int, kTokens> candidates{};
  int count = 0;
  const SeatData& s = data.seats[r.seat];
  for (int token = 0; token < kTokens; ++token)
    if (s.token_space[token] == r.space && !(s.face_up >> token & 1)) candidates[count++] = token;
  Rng rng(data.rng);
  const int token = candidates[rng.Below(static_cast<uint32_t>(count))];
  data.rng = rng.state();
  return token;
}

// Every legal token reference of `caster` (others' face-down tokens once per space).
int LegalRefs(const Data& data, int caster, std::array<int, 64>& refs) {
  int count = 0;
  for (int seat = 0; seat < data.players; ++seat) {
    for (int space = 0; space < kSpaces; ++space) {
      if (!Untallied(data, space)) continue;
      for (int slot = 0; slot < kSlots; ++slot) {
        const int ref = (seat * kSlots + slot) * kSpaces + space;
        if (count < 64 && TokenRefLegal(data, caster, ref)) refs[count++] = ref;
      }
    }
  }
  return count;
}

bool LegalDestinationFrom(const Data& data, int owner, int from, int dest) {
  return Untallied(data, dest) && dest != from && SpaceOpenFor(data, owner, dest);
}

bool HasFaceUpTokenOrCarpet(const Data& data, int space) {
  for (int seat = 0; seat < data.players; ++seat) {
    const SeatData& s = data.seats[seat];
    if (s.carpets[space] > 0) return true;
    for (int token = 0; token < kTokens; ++token)
      if (s.token_space[token] == space && (s.face_up >> token & 1)) return true;
  }
  return false;
}

bool CaveHasUnits(const Data& data, int cave) {
  for (uint8_t units : data.shelves[cave])
    if (units > 0) return true;
  return false;
}

bool SomeoneHasUnits(const Data& data) {
  for (int seat = 0; seat < data.players; ++seat)
    if (Total(data.seats[seat].treasure) > 0) return true;
  return false;
}

bool OpponentInvoked(const Data& data, int seat, int artifact) {
  for (int other = 0; other < data.players; ++other)
    if (other != seat && data.seats[other].invoked[artifact] > 0) return true;
  return false;
}

// The n-th token of `seat` on an untallied city space, in tally order, higher values first.
int CityTaxToken(const Data& data, int seat, int n) {
  for (int space = kTent; space <= kCaravan; ++space) {
    if (!Untallied(data, space)) continue;
    for (int token = kTokens - 1; token >= 0; --token)
      if (data.seats[seat].token_space[token] == space && n-- == 0) return token;
  }
  return -1;
}

// A bit for each token of `seat` in an untallied room.
uint8_t UntalliedRoomTokens(const Data& data, int seat) {
  uint8_t tokens = 0;
  for (int token = 0; token < kTokens; ++token) {
    const int8_t at = data.seats[seat].token_space[token];
    if (IsRoom(at) && Untallied(data, at)) tokens |= static_cast<uint8_t>(1 << token);
  }
  return tokens;
}

int RoomTokens(const Data& data, int seat) { return std::popcount(UntalliedRoomTokens(data, seat)); }

bool OpponentHas(const Data& data, int seat, bool (*has)(const Data&, int)) {
  for (int other = 0; other < data.players; ++other)
    if (other != seat && has(data, other)) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Legality, one function per spell: `target` is the spell's target code.

bool AbracadabraLegal(const Data& data, int seat, int) {
  return data.phase == Phase::kBuyer && data.buyer == seat &&
         data.stack_size[data.space - kRoom1] > 0;
}

bool LastFirstLegal(const Data& data, int, int) {
  return TallyWindow(data) && data.space != kGate && !data.last_first;
}

bool CharityLegal(const Data& data, int, int) { return AnyWindow(data) && Total(data.bank) > 0; }

bool CityTaxLegal(const Data& data, int seat, int) {
  return AnyWindow(data) &&
         OpponentHas(data, seat, [](const Data& d, int s) { return CityTaxToken(d, s, 0) >= 0; });
}

bool DonationLegal(const Data& data, int, int) { return AnyWindow(data) && SomeoneHasUnits(data); }

bool DragonLeavesLegal(const Data& data, int, int target) {
  return AnyWindow(data) && IsCave(target) && Untallied(data, target) &&
         !CaveHasUnits(data, target) && data.bank[target] > 0;
}

bool DragonsReturnLegal(const Data& data, int, int target) {
  return TallyWindow(data) && IsCave(target) && Untallied(data, target) &&
         CaveHasUnits(data, target);
}

bool HasOwnUntalliedToken(const Data& data, int seat) {
  for (int token = 0; token < kTokens; ++token)
    if (TokenOnUntallied(data, seat, token)) return true;
  return false;
}

bool EyeForAnEyeLegal(const Data& data, int seat, int target) {
  const int own = target / kTokenRefs, ref = target % kTokenRefs;
  if (!AnyWindow(data) || DecodeRef(ref).seat == seat || !TokenRefLegal(data, seat, ref)) return false;
  if (own == kTokens) return !HasOwnUntalliedToken(data, seat);
  return TokenOnUntallied(data, seat, own);
}

void AppendEyeForAnEye(const Data& data, int seat, std::vector<Move>& out) {
  std::array<int, 64> refs{};
  const int count = LegalRefs(data, seat, refs);
  for (int own = 0; own <= kTokens; ++own)
    for (int i = 0; i < count; ++i)
      if (EyeForAnEyeLegal(data, seat, own * kTokenRefs + refs[i]))
        out.push_back(SpellMove(kEyeForAnEye, own * kTokenRefs + refs[i]));
}

bool EclipseLegal(const Data& data, int, int target) {
  return AnyWindow(data) && Untallied(data, target) && HasFaceUpTokenOrCarpet(data, target);
}

bool ApprenticeLegal(const Data& data, int seat, int target) {
  const int room = target / kArtifactTypes, artifact = target % kArtifactTypes;
  const SeatData& s = data.seats[seat];
  return AnyWindow(data) && room < data.players && Untallied(data, kRoom1 + room) &&
         data.face_up[room] >= 0 && data.face_up[room] != artifact &&
         s.owned[artifact] > s.invoked[artifact];
}

bool MirageLegal(const Data& data, int, int target) {
  return AnyWindow(data) && IsRoom(target) && Untallied(data, target) &&
         data.stack_size[target - kRoom1] > 0;
}

bool ParasiteLegal(const Data& data, int seat, int target) {
  const int artifact = target / 100, argument = target % 100;
  if (artifact >= kArtifactTypes || !OpponentInvoked(data, seat, artifact)) return false;
  switch (artifact) {
    case kCounterspell:
      return argument == 0 && data.phase == Phase::kCounter && data.pending_count == 1 &&
             data.pending[0].caster != seat;
    case kDouble:
      return TallyWindow(data) && argument < kTokens &&
             data.seats[seat].token_space[argument] == data.space;
    case kCarpet:
      return argument == 0 && TallyWindow(data) && CarpetAllowed(data, seat, data.space);
    case kKey:
      return argument == 0 && TallyWindow(data) && data.space == kGate &&
             !data.seats[seat].entered && Strength(data, seat, kGate) < data.guard;
    default:
      return false;  // Lamp and Scroll cannot be copied
  }
}

bool SecondChanceLegal(const Data& data, int seat, int target) {
  const int token = target / 15, dest = target % 15;
  return AnyWindow(data) && token < kTokens && TokenOnUntallied(data, seat, token) &&
         LegalDestination(data, seat, token, dest);
}

bool SmugglerLegal(const Data& data, int, int) {
  if (!TallyWindow(data) || !IsCity(data.space)) return false;
  for (int space = data.space; space <= kCaravan; ++space) {
    bool empty = true;
    for (int seat = 0; seat < data.players; ++seat) empty = empty && !HasPresence(data, seat, space);
    if (empty) return true;
  }
  return false;
}

bool SpyLegal(const Data& data, int seat, int) {
  return data.phase == Phase::kPlace && !(data.spy >> seat & 1);
}

bool SultansTaxLegal(const Data& data, int seat, int) {
  return AnyWindow(data) &&
         OpponentHas(data, seat, [](const Data& d, int s) { return RoomTokens(d, s) > 0; });
}

bool TabooLegal(const Data& data, int, int target) {
  return AnyWindow(data) && Untallied(data, target) && !(data.taboo >> target & 1);
}

bool TeleportLegal(const Data& data, int seat, int target) {
  const int ref = target / kSpaces, dest = target % kSpaces;
  if (!AnyWindow(data) || Total(data.seats[seat].treasure) < 2 || !TokenRefLegal(data, seat, ref))
    return false;
  const TokenRef r = DecodeRef(ref);
  return LegalDestinationFrom(data, r.seat, r.space, dest);
}

void AppendTeleport(const Data& data, int seat, std::vector<Move>& out) {
  std::array<int, 64> refs{};
  const int count = LegalRefs(data, seat, refs);
  for (int i = 0; i < count; ++i)
    for (int dest = 0; dest < kSpaces; ++dest)
      if (TeleportLegal(data, seat, refs[i] * kSpaces + dest))
        out.push_back(SpellMove(kTeleport, refs[i] * kSpaces + dest));
}

bool TradeLegal(const Data& data, int seat, int target) {
  const int other = target / kKinds, kind = target % kKinds;
  const SeatData& s = data.seats[seat];
  return AnyWindow(data) && other < data.players && other != seat &&
         Total(s.treasure) - s.treasure[kind] > 0;
}

// ---------------------------------------------------------------------------
// Resolution, one function per spell. Each ends with FinishSpell, or asks a seat to decide
// and continues in ContinueSpell.

void ResolveAbracadabra(MorgenlandState& state, const Pending& spell, EventSink* events);
void ResolveMirage(MorgenlandState& state, const Pending& spell, EventSink* events);

void ResolveLastFirst(MorgenlandState& state, const Pending&, EventSink* events) {
  state.mutable_data().last_first = true;
  state.FinishSpell(events);
}

void ResolveCharity(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  if (Total(data.bank) == 0) return state.FinishSpell(events);
  data.phase = Phase::kTake;
  data.purpose = Purpose::kCharity;
  data.units_left = 3;
  data.active = spell.caster;
}

void CityTaxFrom(MorgenlandState& state, EventSink* events) {
  Data& data = state.mutable_data();
  const int caster = data.pending[data.pending_count - 1].caster;
  for (; data.resume_seat < data.players; ++data.resume_seat, data.cursor = 0) {
    const int seat = SeatInOrder(data, data.resume_seat);
    if (seat == caster) continue;
    for (int token; (token = CityTaxToken(data, seat, data.cursor)) >= 0;) {
      if (Total(data.seats[seat].treasure) >= 2) {
        data.phase = Phase::kTax;
        data.active = static_cast<int8_t>(seat);
        return;
      }
      state.SetAsideToken(seat, token, events, "City Tax");
    }
  }
  state.FinishSpell(events);
}

void ResolveCityTax(MorgenlandState& state, const Pending&, EventSink* events) {
  state.mutable_data().resume_seat = 0;
  state.mutable_data().cursor = 0;
  CityTaxFrom(state, events);
}

void SultansTaxFrom(MorgenlandState& state, EventSink* events) {
  Data& data = state.mutable_data();
  const int caster = data.pending[data.pending_count - 1].caster;
  for (; data.resume_seat < data.players; ++data.resume_seat) {
    const int seat = SeatInOrder(data, data.resume_seat);
    const int count = RoomTokens(data, seat);
    if (seat == caster || count == 0) continue;
    if (Total(data.seats[seat].treasure) >= count) {
      data.phase = Phase::kTax;
      data.active = static_cast<int8_t>(seat);
      return;
    }
    state.SetAsideTokens(seat, UntalliedRoomTokens(data, seat), events, SpellName(kSultansTax));
  }
  state.FinishSpell(events);
}

void ResolveSultansTax(MorgenlandState& state, const Pending&, EventSink* events) {
  state.mutable_data().resume_seat = 0;
  SultansTaxFrom(state, events);
}

int DonationAmount(const Data& data) {
  return data.pending[data.pending_count - 1].spell == kSacrifice ? 7 : 5;
}

// Each seat in player order returns the amount, or all its units if it holds no more.
void DonationFrom(MorgenlandState& state, EventSink* events) {
  Data& data = state.mutable_data();
  const int amount = DonationAmount(data);
  for (; data.resume_seat < data.players; ++data.resume_seat) {
    const int seat = SeatInOrder(data, data.resume_seat);
    SeatData& s = data.seats[seat];
    if (Total(s.treasure) > amount) {
      data.phase = Phase::kPay;
      data.purpose = Purpose::kDonation;
      data.units_left = static_cast<uint8_t>(amount);
      data.active = static_cast<int8_t>(seat);
      return;
    }
    for (int kind = 0; kind < kKinds; ++kind) {
      if (s.treasure[kind] == 0) continue;
      state.EmitUnits(events, seat, kind, -s.treasure[kind], SpellName(kDonation));
      data.bank[kind] = static_cast<uint8_t>(data.bank[kind] + s.treasure[kind]);
      s.treasure[kind] = 0;
    }
  }
  state.FinishSpell(events);
}

void ResolveDonation(MorgenlandState& state, const Pending&, EventSink* events) {
  state.mutable_data().resume_seat = 0;
  DonationFrom(state, events);
}

void ResolveDragonLeaves(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int cave = spell.target;
  if (!CaveHasUnits(data, cave)) {
    for (int shelf = 0; shelf < 2; ++shelf) {
      const uint8_t units = std::min<uint8_t>(shelf == 0 ? 4 : 2, data.bank[cave]);
      data.shelves[cave][shelf] = units;
      data.bank[cave] = static_cast<uint8_t>(data.bank[cave] - units);
    }
  }
  state.FinishSpell(events);
}

void ResolveDragonsReturn(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  for (uint8_t& units : data.shelves[spell.target]) {
    data.bank[spell.target] = static_cast<uint8_t>(data.bank[spell.target] + units);
    units = 0;
  }
  state.FinishSpell(events);
}

void ResolveEyeForAnEye(MorgenlandState& state, const Pending& spell, EventSink* events) {
  const int own = spell.target / kTokenRefs, ref = spell.target % kTokenRefs;
  if (own < kTokens && TokenOnUntallied(state.data(), spell.caster, own))
    state.SetAsideToken(spell.caster, own, events, SpellName(kEyeForAnEye));
  const int token = ResolveRef(state, spell.caster, ref);
  if (token >= 0) state.SetAsideToken(DecodeRef(ref).seat, token, events, SpellName(kEyeForAnEye));
  state.FinishSpell(events);
}

// Face-up tokens of the given parity leave the space (odd: Lunar, even: Solar).
void ResolveEclipse(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int space = spell.target;
  const bool odd = spell.spell == kLunarEclipse;
  for (int seat = 0; seat < data.players; ++seat) {
    SeatData& s = data.seats[seat];
    for (int token = 0; token < kTokens; ++token) {
      if (s.token_space[token] != space || !(s.face_up >> token & 1)) continue;
      if ((TokenValue(token) % 2 == 1) == odd) state.SetAsideToken(seat, token, events, SpellName(spell.spell));
    }
    if (odd) s.carpets[space] = 0;  // carpets return to their owners, still invoked
  }
  state.FinishSpell(events);
}

void ResolveApprentice(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int room = spell.target / kArtifactTypes, artifact = spell.target % kArtifactTypes;
  SeatData& s = data.seats[spell.caster];
  if (data.face_up[room] >= 0 && s.owned[artifact] > s.invoked[artifact]) {
    --s.owned[artifact];
    ++s.owned[data.face_up[room]];
    data.face_up[room] = static_cast<int8_t>(artifact);
  }
  state.FinishSpell(events);
}

void ResolveParasite(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int artifact = spell.target / 100, argument = spell.target % 100;
  ++data.seats[spell.caster].parasite_uses;
  if (artifact == kCounterspell) {
    // Cancels the spell below it: both are discarded.
    const Pending parasite = data.pending[--data.pending_count];
    data.pending[data.pending_count] = Pending{};
    data.discards |= 1u << parasite.spell;
    state.EmitSpellStage(events, parasite, "resolved", -1);
    return state.Counter(parasite.caster, events);
  }
  const bool still = artifact == kDouble ? data.seats[spell.caster].token_space[argument] == data.space
                     : artifact == kCarpet ? CarpetAllowed(data, spell.caster, data.space)
                                           : true;
  if (still) state.ApplyPower(spell.caster, artifact, artifact == kDouble ? argument : -1, events);
  state.FinishSpell(events);
}

void ResolveSecondChance(MorgenlandState& state, const Pending& spell, EventSink* events) {
  const int token = spell.target / 15, dest = spell.target % 15;
  if (TokenOnUntallied(state.data(), spell.caster, token) &&
      LegalDestination(state.data(), spell.caster, token, dest))
    state.MoveToken(spell.caster, token, dest, events);
  state.FinishSpell(events);
}

void ResolveSmuggler(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  for (int space = std::max<int>(data.space, kTent); space <= kCaravan; ++space) {
    bool empty = true;
    for (int seat = 0; seat < data.players; ++seat) empty = empty && !HasPresence(data, seat, space);
    if (empty) data.seats[spell.caster].smuggler_spaces |= static_cast<uint16_t>(1 << space);
  }
  state.FinishSpell(events);
}

void ResolveSpy(MorgenlandState& state, const Pending& spell, EventSink* events) {
  state.mutable_data().spy |= static_cast<uint8_t>(1 << spell.caster);
  state.FinishSpell(events);
}

void ResolveTaboo(MorgenlandState& state, const Pending& spell, EventSink* events) {
  state.mutable_data().taboo |= static_cast<uint16_t>(1 << spell.target);
  state.FinishSpell(events);
}

// The token is identified only now, after the payment (a face-down one at random).
void CompleteTeleport(MorgenlandState& state, EventSink* events) {
  const Pending& spell = state.data().pending[state.data().pending_count - 1];
  const int ref = spell.target / kSpaces, dest = spell.target % kSpaces;
  const int who = DecodeRef(ref).seat;
  const int token = ResolveRef(state, spell.caster, ref);
  const Data& data = state.data();
  if (token >= 0 && LegalDestinationFrom(data, who, data.seats[who].token_space[token], dest))
    state.MoveToken(who, token, dest, events);
  state.FinishSpell(events);
}

// The caster pays 2 units (as far as it can), then the token moves.
void ResolveTeleport(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int units = std::min(2, Total(data.seats[spell.caster].treasure));
  if (units == 0) return CompleteTeleport(state, events);
  data.phase = Phase::kPay;
  data.purpose = Purpose::kTeleport;
  data.units_left = static_cast<uint8_t>(units);
  data.active = spell.caster;
}

void ResolveTrade(MorgenlandState& state, const Pending& spell, EventSink* events) {
  Data& data = state.mutable_data();
  const int other = spell.target / kKinds, kind = spell.target % kKinds;
  SeatData& caster = data.seats[spell.caster];
  SeatData& opponent = data.seats[other];
  const int amount = std::min({3, static_cast<int>(opponent.treasure[kind]),
                               Total(caster.treasure) - caster.treasure[kind]});
  if (amount == 0) return state.FinishSpell(events);
  opponent.treasure[kind] = static_cast<uint8_t>(opponent.treasure[kind] - amount);
  caster.treasure[kind] = static_cast<uint8_t>(caster.treasure[kind] + amount);
  state.EmitUnits(events, other, kind, -amount, SpellName(kTrade));
  state.EmitUnits(events, spell.caster, kind, amount, SpellName(kTrade));
  data.phase = Phase::kPay;
  data.purpose = Purpose::kTrade;
  data.units_left = static_cast<uint8_t>(amount);
  data.active = spell.caster;
  data.target_seat = static_cast<int8_t>(other);
  data.target_token = static_cast<int8_t>(kind);
}

// Mirage and Abracadabra show the room's face-down artifacts to the caster, who picks one.
void ShowStack(MorgenlandState& state, int caster, int room_space, EventSink* events) {
  Data& data = state.mutable_data();
  const int room = room_space - kRoom1;
  data.target_space = static_cast<int8_t>(room_space);
  data.set_known[room] |= static_cast<uint8_t>(1 << caster);
  data.order_known[room] |= static_cast<uint8_t>(1 << caster);
  data.phase = Phase::kChoose;
  data.active = static_cast<int8_t>(caster);
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* shown = event.mutable_shown();
  shown->set_seat(caster);
  shown->set_space(room_space);
  const std::string text = absl::StrCat("seat ", caster, " looks at the artifacts of ", SpaceName(room_space));
  events->Emit(AllBut(caster), event, text);
  for (int i = 0; i < data.stack_size[room]; ++i) shown->add_artifacts(data.stack[room][i]);
  events->Emit(OnlySeat(caster), event, text);
}

void ResolveAbracadabra(MorgenlandState& state, const Pending& spell, EventSink* events) {
  ShowStack(state, spell.caster, state.data().space, events);
}

void ResolveMirage(MorgenlandState& state, const Pending& spell, EventSink* events) {
  ShowStack(state, spell.caster, spell.target, events);
}

struct SpellRule {
  const char* name;
  int targets;  // target codes 0..targets-1
  bool (*legal)(const Data& data, int seat, int target);
  void (*resolve)(MorgenlandState& state, const Pending& spell, EventSink* events);
  // Appends the legal moves; null: every legal target code in order.
  void (*append)(const Data& data, int seat, std::vector<Move>& out) = nullptr;
};

constexpr std::array<SpellRule, kSpells> kRules = {{
    {"Abracadabra", 1, AbracadabraLegal, ResolveAbracadabra},
    {"And the Last Shall Be First", 1, LastFirstLegal, ResolveLastFirst},
    {"Charity", 1, CharityLegal, ResolveCharity},
    {"City Tax", 1, CityTaxLegal, ResolveCityTax},
    {"Donation", 1, DonationLegal, ResolveDonation},
    {"Dragon Leaves", kSpaces, DragonLeavesLegal, ResolveDragonLeaves},
    {"Dragon's Return", kSpaces, DragonsReturnLegal, ResolveDragonsReturn},
    {"Eye for an Eye", kSlots * kTokenRefs, EyeForAnEyeLegal, ResolveEyeForAnEye, AppendEyeForAnEye},
    {"Lunar Eclipse", kSpaces, EclipseLegal, ResolveEclipse},
    {"Solar Eclipse", kSpaces, EclipseLegal, ResolveEclipse},
    {"Mage's Apprentice", kMaxPlayers * kArtifactTypes, ApprenticeLegal, ResolveApprentice},
    {"Mirage", kSpaces, MirageLegal, ResolveMirage},
    {"Parasite", 100 * kArtifactTypes, ParasiteLegal, ResolveParasite},
    {"Sacrifice", 1, DonationLegal, ResolveDonation},
    {"Second Chance", 15 * kTokens, SecondChanceLegal, ResolveSecondChance},
    {"Smuggler", 1, SmugglerLegal, ResolveSmuggler},
    {"Spy", 1, SpyLegal, ResolveSpy},
    {"Sultan's Tax", 1, SultansTaxLegal, ResolveSultansTax},
    {"Taboo!", kSpaces, TabooLegal, ResolveTaboo},
    {"Teleport", kTokenRefs * kSpaces, TeleportLegal, ResolveTeleport, AppendTeleport},
    {"Trade", kKinds * kMaxPlayers, TradeLegal, ResolveTrade},
}};

bool DecodeSpellMove(Move move, int* spell, int* target) {
  if (move.id < kSpellBase || move.id >= kMaxMoveId) return false;
  *spell = SpellOf(move);
  *target = TargetOf(move);
  return *target < kRules[*spell].targets;
}

}  // namespace

bool PendingWellFormed(const Data& data, const Pending& spell) {
  if (spell.target >= kRules[spell.spell].targets) return false;
  const int target = spell.target;
  switch (spell.spell) {
    case kDragonLeaves:
    case kDragonsReturn:
      return IsCave(target);
    case kMirage:
      return IsRoom(target) && target < kRoom1 + data.players;
    case kAbracadabra:
      return data.buyer == spell.caster && IsRoom(data.space);
    case kParasite: {
      const int artifact = target / 100, argument = target % 100;
      return artifact >= kCounterspell && artifact <= kKey && spell.copied == artifact &&
             argument < (artifact == kDouble ? kTokens : 1);
    }
    case kTrade:
      return target / kKinds < data.players && target / kKinds != spell.caster;
    default:
      return spell.copied == -1;
  }
}

int TaxDue(const Data& data, int seat) {
  if (data.pending_count == 0) return -1;
  if (data.pending[data.pending_count - 1].spell == kCityTax)
    return CityTaxToken(data, seat, data.cursor) >= 0 ? 2 : -1;
  const int count = RoomTokens(data, seat);
  return count > 0 ? count : -1;
}

const char* SpellName(int spell) {
  return spell >= 0 && spell < kSpells ? kRules[spell].name : "?";
}

bool MayCastSpells(const Data& data, int seat) {
  const SeatData& s = data.seats[seat];
  return data.pro && s.invoked[kLamp] > 0 && s.spells != 0;
}

void AppendSpellMoves(const Data& data, int seat, std::vector<Move>& out) {
  if (!MayCastSpells(data, seat)) return;
  const uint32_t spells = data.seats[seat].spells;
  for (int spell = 0; spell < kSpells; ++spell) {
    if (!(spells >> spell & 1)) continue;
    const SpellRule& rule = kRules[spell];
    if (rule.append) {
      rule.append(data, seat, out);
      continue;
    }
    for (int target = 0; target < rule.targets; ++target)
      if (rule.legal(data, seat, target)) out.push_back(SpellMove(spell, target));
  }
}

bool SpellMoveLegal(const Data& data, int seat, Move move) {
  int spell, target;
  if (!DecodeSpellMove(move, &spell, &target) || !MayCastSpells(data, seat)) return false;
  return (data.seats[seat].spells >> spell & 1) && kRules[spell].legal(data, seat, target);
}

std::string SpellMoveText(const Data&, Move move) {
  int spell, target;
  if (!DecodeSpellMove(move, &spell, &target)) return absl::StrCat("unknown spell move ", move.id);
  std::string text = kRules[spell].name;
  switch (spell) {
    case kDragonLeaves: case kDragonsReturn: case kLunarEclipse: case kSolarEclipse:
    case kMirage: case kTaboo:
      return absl::StrCat(text, " on ", SpaceName(target));
    case kSecondChance:
      return absl::StrCat(text, ": own ", TokenValue(target / 15), " to ", SpaceName(target % 15));
    case kTeleport: {
      const TokenRef r = DecodeRef(target / kSpaces);
      return absl::StrCat(text, ": seat ", r.seat, "'s token on ", SpaceName(r.space), " to ",
                          SpaceName(target % kSpaces));
    }
    case kEyeForAnEye: {
      const TokenRef r = DecodeRef(target % kTokenRefs);
      return absl::StrCat(text, ": seat ", r.seat, "'s token on ", SpaceName(r.space),
                          target / kTokenRefs < kTokens
                              ? absl::StrCat(" and own ", TokenValue(target / kTokenRefs))
                              : "");
    }
    case kApprentice:
      return absl::StrCat(text, ": own ", ArtifactName(target % kArtifactTypes), " for ",
                          SpaceName(kRoom1 + target / kArtifactTypes), "'s artifact");
    case kTrade:
      return absl::StrCat(text, " with seat ", target / kKinds, " for ", KindName(target % kKinds));
    case kParasite:
      return absl::StrCat(text, " copying ", ArtifactName(target / 100));
    default:
      return text;
  }
}

void MorgenlandState::ApplySpellMove(Move move, EventSink* events) {
  int spell = 0, target = 0;
  DecodeSpellMove(move, &spell, &target);
  PlaySpell(data_.active, spell, target, spell == kParasite ? target / 100 : -1, events);
}

void MorgenlandState::ResolvePending(const Pending& spell, EventSink* events) {
  const Pending copy = spell;
  kRules[copy.spell].resolve(*this, copy, events);
}

void MorgenlandState::ContinueSpell(Purpose purpose, EventSink* events) {
  switch (purpose) {
    case Purpose::kDonation:
      ++data_.resume_seat;
      return DonationFrom(*this, events);
    case Purpose::kCityTax:
      ++data_.cursor;
      return CityTaxFrom(*this, events);
    case Purpose::kSultansTax:
      ++data_.resume_seat;
      return SultansTaxFrom(*this, events);
    case Purpose::kTeleport:
      return CompleteTeleport(*this, events);
    default:
      return FinishSpell(events);  // Charity, Trade
  }
}

void MorgenlandState::ApplyTaxDecision(bool pay, EventSink* events) {
  const int seat = data_.active;
  const bool city = data_.pending[data_.pending_count - 1].spell == kCityTax;
  if (pay) {
    data_.phase = Phase::kPay;
    data_.purpose = city ? Purpose::kCityTax : Purpose::kSultansTax;
    data_.units_left = static_cast<uint8_t>(city ? 2 : RoomTokens(data_, seat));
    return;
  }
  if (city) {
    SetAsideToken(seat, CityTaxToken(data_, seat, data_.cursor), events, SpellName(kCityTax));
    return CityTaxFrom(*this, events);
  }
  SetAsideTokens(seat, UntalliedRoomTokens(data_, seat), events, SpellName(kSultansTax));
  ++data_.resume_seat;
  SultansTaxFrom(*this, events);
}

// Mirage: the chosen artifact goes face up on top, the old face-up one to the bottom.
// Abracadabra: the buyer takes the chosen artifact; the face-down rest is reshuffled.
void MorgenlandState::ApplyChoice(int position, EventSink* events) {
  const int room = data_.target_space - kRoom1;
  auto& stack = data_.stack[room];
  uint8_t& size = data_.stack_size[room];
  int chosen = -1;
  if (position < kMaxStack) {
    chosen = stack[position];
    for (int i = position; i + 1 < size; ++i) stack[i] = stack[i + 1];
    stack[--size] = -1;
  }
  const Pending spell = data_.pending[data_.pending_count - 1];
  if (spell.spell == kMirage) {
    if (data_.face_up[room] >= 0) {
      for (int i = size; i > 0; --i) stack[i] = stack[i - 1];
      stack[0] = data_.face_up[room];
      ++size;
    }
    data_.face_up[room] = static_cast<int8_t>(chosen);
    return FinishSpell(events);
  }
  // Abracadabra, in the buyer window.
  if (chosen < 0) {
    chosen = data_.face_up[room];
    data_.face_up[room] = -1;
  } else {
    Rng rng(data_.rng);
    rng.Shuffle(stack.data(), size);
    data_.rng = rng.state();
    data_.order_known[room] = 0;
  }
  data_.pending[--data_.pending_count] = Pending{};
  data_.discards |= 1u << kAbracadabra;
  EmitSpellStage(events, spell, "resolved", -1);
  data_.target_space = -1;
  GrantPurchase(chosen, events);
}

}  // namespace gavel::morgenland
