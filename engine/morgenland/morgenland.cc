// Morgenland's rules: setup, the vizier step, placement, the tally of every space, the
// gate and the rooms with their payments, the end of round and of the game.
#include "engine/morgenland/morgenland.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "engine/core/ranking.h"
#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {

// ---------------------------------------------------------------------------
// Shared helpers

int TokenValue(int token) { return kTokenValues[token]; }

int Total(const std::array<uint8_t, kKinds>& units) {
  return std::accumulate(units.begin(), units.end(), 0);
}

bool HasToken(const Data& data, int seat, int space) {
  for (int8_t at : data.seats[seat].token_space)
    if (at == space) return true;
  return false;
}

bool HasPresence(const Data& data, int seat, int space) {
  const SeatData& s = data.seats[seat];
  return HasToken(data, seat, space) || s.carpets[space] > 0 || (s.smuggler_spaces >> space & 1);
}

int Strength(const Data& data, int seat, int space) {
  const SeatData& s = data.seats[seat];
  int strength = kCarpetValue * s.carpets[space];
  for (int token = 0; token < kTokens; ++token)
    if (s.token_space[token] == space) strength += TokenValue(token) * (1 + s.copies[token]);
  if (s.smuggler_spaces >> space & 1) strength += kSmugglerValue;
  return strength;
}

int RankSpace(const Data& data, int space, std::array<int8_t, kMaxPlayers>& order) {
  int count = 0;
  std::array<int, kMaxPlayers> strength{};
  for (int offset = 0; offset < data.players; ++offset) {
    const int seat = SeatInOrder(data, offset);
    if (!HasPresence(data, seat, space)) continue;
    strength[seat] = Strength(data, seat, space);
    order[count++] = static_cast<int8_t>(seat);
  }
  // Stable: player order is the last key.
  std::stable_sort(order.begin(), order.begin() + count, [&](int8_t a, int8_t b) {
    if (strength[a] != strength[b])
      return data.last_first ? strength[a] < strength[b] : strength[a] > strength[b];
    const bool scroll_a = data.seats[a].scroll_spaces >> space & 1;
    const bool scroll_b = data.seats[b].scroll_spaces >> space & 1;
    return scroll_a && !scroll_b;
  });
  return count;
}

bool RoomHasArtifact(const Data& data, int room) {
  return data.stack_size[room] > 0 || data.face_up[room] >= 0;
}

int ArtifactsLeft(const Data& data) {
  int left = 0;
  for (int room = 0; room < data.players; ++room)
    left += data.stack_size[room] + (data.face_up[room] >= 0 ? 1 : 0);
  return left;
}

bool SpaceOpenFor(const Data& data, int seat, int space) {
  if (data.taboo >> space & 1) return false;
  if (IsCave(space)) {
    for (uint8_t units : data.shelves[space])
      if (units > 0) return true;
    return false;
  }
  if (space == kTent || space == kDjinn) return data.pro;
  if (space == kMarket || space == kCaravan || space == kGate) return true;
  const int room = space - kRoom1;
  if (room >= data.players || !RoomHasArtifact(data, room)) return false;
  // After the gate, only entrants may come into the rooms (rules §6.1).
  if (data.space > kGate && !data.seats[seat].entered) return false;
  int own = 0;
  for (int8_t at : data.seats[seat].token_space) own += at == space;
  return own < kMaxRoomTokens;
}

int PaymentItems(const Data& data, int seat, int room_space, std::array<uint8_t, 16>& items) {
  const SeatData& s = data.seats[seat];
  int count = 0;
  for (int token = 0; token < kTokens; ++token) {
    if (s.token_space[token] != room_space) continue;
    for (int copy = 0; copy <= s.copies[token] && count < 16; ++copy)
      items[count++] = static_cast<uint8_t>(TokenValue(token));
  }
  for (int carpet = 0; carpet < s.carpets[room_space] && count < 16; ++carpet)
    items[count++] = kCarpetValue;
  std::sort(items.begin(), items.begin() + count, std::greater<>());
  return count;
}

bool CanAssign(const std::array<uint8_t, kKinds>& treasure, const uint8_t* items, int count,
               uint8_t used) {
  if (count == 0) return true;
  if (count > kKinds) return false;
  for (int kind = 0; kind < kKinds; ++kind) {
    if ((used >> kind & 1) || treasure[kind] < items[0]) continue;
    if (CanAssign(treasure, items + 1, count - 1, used | (1 << kind))) return true;
  }
  return false;
}

int InvokedCount(const SeatData& seat) {
  return std::accumulate(seat.invoked.begin(), seat.invoked.end(), 0);
}

int ArtifactLimit(const SeatData& seat) { return seat.djinn ? 2 : 1; }

// ---------------------------------------------------------------------------
// Events

namespace {

void FillToken(const Data& data, int seat, int token, bool show_value, v1::MorgenlandToken* out) {
  const SeatData& s = data.seats[seat];
  out->set_seat(seat);
  out->set_index(show_value ? token : 0);
  out->set_value(show_value ? TokenValue(token) : 0);
  out->set_space(s.token_space[token]);
  out->set_face_up(s.face_up >> token & 1);
  out->set_copies(s.copies[token]);
}

std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

}  // namespace

void MorgenlandState::Emit(EventSink* events, SeatMask audience, const v1::MorgenlandEvent& event,
                           std::string text) const {
  if (events) events->Emit(audience, event, std::move(text));
}

void MorgenlandState::EmitUnits(EventSink* events, int seat, int kind, int units,
                                const char* reason) const {
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* detail = event.mutable_units();
  detail->set_seat(seat);
  detail->set_kind(kind);
  detail->set_units(units);
  detail->set_reason(reason);
  events->Emit(kEveryone, event,
               absl::StrCat(SeatName(seat), units > 0 ? " gains " : " pays ", std::abs(units),
                            " ", KindName(kind), " (", reason, ")"));
}

// ---------------------------------------------------------------------------
// Turn structure

Seat MorgenlandState::to_move() const {
  return data_.phase == Phase::kFinished ? kNoSeat : data_.active;
}

void MorgenlandState::StartRound(EventSink* events) {
  Rng rng(data_.rng);
  // Vizier step (rules §4.1): turn up artifacts, reveal a treasure card, fill the caves.
  if (data_.pro) {
    for (int room = 0; room < data_.players; ++room) {
      if (data_.face_up[room] >= 0 || data_.stack_size[room] == 0) continue;
      data_.face_up[room] = data_.stack[room][--data_.stack_size[room]];
      data_.stack[room][data_.stack_size[room]] = -1;
    }
  }
  if (data_.deck == 0) data_.deck = (1u << kCardsPerDeck) - 1;  // reshuffle the used cards
  int draw = static_cast<int>(rng.Below(static_cast<uint32_t>(std::popcount(data_.deck))));
  for (int card = 0; card < kCardsPerDeck; ++card) {
    if (!(data_.deck >> card & 1) || draw-- > 0) continue;
    data_.card = static_cast<int8_t>(card);
    data_.deck &= static_cast<uint16_t>(~(1u << card));
    break;
  }
  data_.rng = rng.state();
  const TreasureCard& card = CardFor(data_.players, data_.card);
  for (int kind = 0; kind < kKinds; ++kind) {
    for (int shelf = 0; shelf < kMaxShelves; ++shelf) {
      const uint8_t units = std::min(card[kind][shelf], data_.bank[kind]);
      data_.shelves[kind][shelf] = units;
      data_.bank[kind] = static_cast<uint8_t>(data_.bank[kind] - units);
    }
  }
  data_.space = -1;
  data_.phase = Phase::kPlace;
  data_.placer = data_.active = data_.camel;
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* started = event.mutable_round_started();
    started->set_round(data_.round + 1);
    started->set_card(data_.card);
    for (int kind = 0; kind < kKinds; ++kind) {
      auto* shelves = started->add_shelves();
      for (uint8_t units : data_.shelves[kind]) shelves->add_units(units);
    }
    for (int room = 0; room < data_.players; ++room) started->add_face_up(data_.face_up[room]);
    events->Emit(kEveryone, event,
                 absl::StrCat("round ", data_.round + 1, ": treasure card ", data_.card + 1));
  }
}

void MorgenlandState::NextPlacer(EventSink* events) {
  for (int step = 1; step <= data_.players; ++step) {
    const int seat = (data_.placer + step) % data_.players;
    for (int8_t at : data_.seats[seat].token_space) {
      if (at != kInHand) continue;
      data_.placer = data_.active = static_cast<int8_t>(seat);
      return;
    }
  }
  BeginTally(events);
}

void MorgenlandState::BeginTally(EventSink* events) {
  data_.space = 0;
  RevealSpace(events);
}

// Turns the space's tokens face up (the GATE's guard first), then opens its window.
void MorgenlandState::RevealSpace(EventSink* events) {
  const int space = data_.space;
  if (space == kGate) data_.guard = static_cast<int8_t>(DrawGuard());
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* revealed = event.mutable_revealed();
  revealed->set_space(space);
  if (space == kGate) revealed->set_guard(data_.guard);
  for (int offset = 0; offset < data_.players; ++offset) {
    const int seat = SeatInOrder(data_, offset);
    SeatData& s = data_.seats[seat];
    for (int token = 0; token < kTokens; ++token) {
      if (s.token_space[token] != space) continue;
      s.face_up |= static_cast<uint8_t>(1 << token);
      if (events) FillToken(data_, seat, token, true, revealed->add_tokens());
    }
  }
  if (events) {
    events->Emit(kEveryone, event,
                 absl::StrCat(SpaceName(space), " revealed",
                              space == kGate ? absl::StrCat(", guard ", data_.guard) : ""));
  }
  if (!data_.pro) return ResolveSpace(events);
  data_.phase = Phase::kWindow;
  data_.passes = 0;
  data_.active = data_.camel;
  SkipSilentWindowSeats(events);
}

int MorgenlandState::DrawGuard() {
  Rng rng(data_.rng);
  const int guard = 1 + static_cast<int>(rng.Below(10));
  data_.rng = rng.state();
  return guard;
}

// Passes for seats that cannot act in the tally window, closing it after n passes.
void MorgenlandState::SkipSilentWindowSeats(EventSink* events) {
  while (data_.passes < data_.players) {
    if (AskedInWindow(data_, data_.active)) return;
    ++data_.passes;
    data_.active = static_cast<int8_t>((data_.active + 1) % data_.players);
  }
  data_.passes = 0;
  ResolveSpace(events);
}

void MorgenlandState::ResolveSpace(EventSink* events) {
  const int space = data_.space;
  if (space == kGate) {
    data_.cursor = 0;
    return ResolveGateFrom(events);
  }
  std::array<int8_t, kMaxPlayers> order{};
  const int count = RankSpace(data_, space, order);
  if (count == 0) return FinishSpace(events);
  EmitResolved(events, space, "");
  if (IsCave(space)) return ResolveCave(order, count, events);
  if (IsRoom(space)) {
    data_.cursor = 0;
    return ResolveRoomFrom(events);
  }
  const int winner = order[0];
  switch (space) {
    case kTent:
      return ResolveTent(order, count, events);
    case kDjinn:
      data_.seats[winner].djinn = true;
      break;
    case kMarket:
      data_.phase = Phase::kMarket;
      data_.active = static_cast<int8_t>(winner);
      return;
    case kCaravan:
      // A winner present only through Smuggler may decline the camel.
      if (data_.choose_camel ||
          (!HasToken(data_, winner, space) && data_.seats[winner].carpets[space] == 0)) {
        data_.phase = Phase::kCaravan;
        data_.active = static_cast<int8_t>(winner);
        return;
      }
      MoveCamel(winner, events);
      break;
  }
  FinishSpace(events);
}

void MorgenlandState::EmitResolved(EventSink* events, int space, const std::string& result) const {
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* resolved = event.mutable_resolved();
  resolved->set_space(space);
  std::array<int8_t, kMaxPlayers> order{};
  const int count = RankSpace(data_, space, order);
  std::string ranking;
  for (int i = 0; i < count; ++i) {
    resolved->add_ranking(order[i]);
    resolved->add_strengths(Strength(data_, order[i], space));
    absl::StrAppend(&ranking, i ? ", " : "", SeatName(order[i]), " (",
                    Strength(data_, order[i], space), ")");
  }
  resolved->set_result(result);
  events->Emit(kEveryone, event,
               absl::StrCat(SpaceName(space), " is tallied: ", ranking.empty() ? "nobody" : ranking,
                            result.empty() ? "" : "; ", result));
}

void MorgenlandState::MoveCamel(int seat, EventSink* events) {
  data_.camel = static_cast<int8_t>(seat);
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  event.mutable_camel()->set_seat(seat);
  events->Emit(kEveryone, event, absl::StrCat(SeatName(seat), " takes the camel"));
}

void MorgenlandState::ResolveCave(const std::array<int8_t, kMaxPlayers>& order, int count,
                                  EventSink* events) {
  const int kind = data_.space;
  for (int rank = 0; rank < count && rank < kMaxShelves; ++rank) {
    const int units = data_.shelves[kind][rank];
    if (units == 0) continue;
    data_.shelves[kind][rank] = 0;
    SeatData& s = data_.seats[order[rank]];
    s.treasure[kind] = static_cast<uint8_t>(s.treasure[kind] + units);
    EmitUnits(events, order[rank], kind, units, "cave");
  }
  FinishSpace(events);
}

// The strongest draws two spells and keeps one; the other goes to the second strongest.
void MorgenlandState::ResolveTent(const std::array<int8_t, kMaxPlayers>& order, int count,
                                  EventSink* events) {
  Rng rng(data_.rng);
  data_.tent = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    if (data_.spell_deck == 0) {
      data_.spell_deck = data_.discards;  // reshuffle the discards
      data_.discards = 0;
    }
    if (data_.spell_deck == 0) break;
    int draw = static_cast<int>(rng.Below(static_cast<uint32_t>(std::popcount(data_.spell_deck))));
    for (int spell = 0; spell < kSpells; ++spell) {
      if (!(data_.spell_deck >> spell & 1) || draw-- > 0) continue;
      data_.tent[i] = static_cast<int8_t>(spell);
      data_.spell_deck &= ~(1u << spell);
      break;
    }
  }
  data_.rng = rng.state();
  if (data_.tent[0] < 0) return FinishSpace(events);
  data_.tent_second = count > 1 ? order[1] : -1;
  data_.phase = Phase::kTent;
  data_.active = order[0];
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* tent = event.mutable_tent();
    tent->set_seat(order[0]);
    tent->set_second(data_.tent_second);
    const std::string text = absl::StrCat(SeatName(order[0]), " draws ",
                                          data_.tent[1] >= 0 ? 2 : 1, " spells at the TENT");
    // Only the strongest sees the drawn cards now.
    events->Emit(AllBut(order[0]), event, text);
    for (int8_t spell : data_.tent)
      if (spell >= 0) tent->add_spells(spell);
    std::string names;
    for (int8_t spell : data_.tent)
      if (spell >= 0) absl::StrAppend(&names, names.empty() ? ": " : ", ", SpellName(spell));
    events->Emit(OnlySeat(order[0]), event, text + names);
  }
}

// Gate (rules §4.4): each seat in player order enters, bribes or stays out.
void MorgenlandState::ResolveGateFrom(EventSink* events) {
  for (; data_.cursor < data_.players; ++data_.cursor) {
    const int seat = SeatInOrder(data_, data_.cursor);
    SeatData& s = data_.seats[seat];
    const int strength = Strength(data_, seat, kGate);
    if (s.entered || strength >= data_.guard) {
      EnterPalace(seat, 0, events);
      continue;
    }
    if (strength >= 1) {
      data_.phase = Phase::kBribe;
      data_.active = static_cast<int8_t>(seat);
      return;
    }
    StayOut(seat, events);
  }
  FinishSpace(events);
}

void MorgenlandState::EnterPalace(int seat, int bribe, EventSink* events) {
  data_.seats[seat].entered = true;
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* gate = event.mutable_gate();
  gate->set_seat(seat);
  gate->set_entered(true);
  gate->set_bribe(bribe);
  events->Emit(kEveryone, event,
               absl::StrCat(SeatName(seat), " enters the palace",
                            bribe ? absl::StrCat(" for a bribe of ", bribe) : ""));
}

void MorgenlandState::StayOut(int seat, EventSink* events) {
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    event.mutable_gate()->set_seat(seat);
    events->Emit(kEveryone, event, absl::StrCat(SeatName(seat), " stays out of the palace"));
  }
  uint8_t in_rooms = 0;
  for (int token = 0; token < kTokens; ++token)
    if (IsRoom(data_.seats[seat].token_space[token])) in_rooms |= static_cast<uint8_t>(1 << token);
  SetAsideTokens(seat, in_rooms, events, "outside the palace");
}

// Space by space, on each the face-down tokens before the face-up ones: token indices rise
// with the values, so in token order the public forms would tell which of two face-down
// tokens is worth more, or whether one is worth more than a face-up one beside it (a seat's
// view lists them so for the same reason, morgenland_view.cc).
void MorgenlandState::SetAsideTokens(int seat, uint8_t tokens, EventSink* events, const char* why) {
  const SeatData& s = data_.seats[seat];
  for (int space = 0; space < kSpaces && tokens != 0; ++space)
    for (const uint8_t shown : {uint8_t{0}, uint8_t{1}})
      for (int token = 0; token < kTokens; ++token)
        if ((tokens >> token & 1) && s.token_space[token] == space && (s.face_up >> token & 1) == shown) {
          SetAsideToken(seat, token, events, why);
          tokens = static_cast<uint8_t>(tokens & ~(1 << token));
        }
}

void MorgenlandState::SetAsideToken(int seat, int token, EventSink* events, const char* why) {
  SeatData& s = data_.seats[seat];
  const bool shown = s.face_up >> token & 1;
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* aside = event.mutable_set_aside();
    aside->set_reason(why);
    const std::string text = absl::StrCat(SeatName(seat), "'s token on ",
                                          SpaceName(s.token_space[token]), " is set aside (", why,
                                          ")");
    FillToken(data_, seat, token, shown, aside->mutable_token());
    if (!shown) {
      events->Emit(AllBut(seat), event, text);
      FillToken(data_, seat, token, true, aside->mutable_token());
      events->Emit(OnlySeat(seat), event, text);
    } else {
      events->Emit(kEveryone, event, text);
    }
  }
  s.token_space[token] = kSetAside;
  s.copies[token] = 0;
}

// Room (rules §4.4): in rank order each seat with presence buys or declines.
void MorgenlandState::ResolveRoomFrom(EventSink* events) {
  const int room = data_.space - kRoom1;
  const bool for_sale = data_.pro ? data_.face_up[room] >= 0 : data_.stack_size[room] > 0;
  std::array<int8_t, kMaxPlayers> order{};
  const int count = for_sale ? RankSpace(data_, data_.space, order) : 0;
  if (data_.cursor >= count) return FinishSpace(events);
  data_.phase = Phase::kOffer;
  data_.active = order[data_.cursor];
}

bool MorgenlandState::CanBuy(int seat) const {
  std::array<uint8_t, 16> items{};
  const int count = PaymentItems(data_, seat, data_.space, items);
  return CanAssign(data_.seats[seat].treasure, items.data(), count, 0);
}

void MorgenlandState::StartPayment(EventSink* events) {
  data_.item_count = static_cast<uint8_t>(PaymentItems(data_, data_.active, data_.space, data_.items));
  data_.kinds_used = 0;
  data_.phase = Phase::kRoomPay;
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    event.mutable_bought()->set_seat(data_.active);
    event.mutable_bought()->set_space(data_.space);
    event.mutable_bought()->set_artifact(-1);
    events->Emit(kEveryone, event,
                 absl::StrCat(SeatName(data_.active), " buys in ", SpaceName(data_.space)));
  }
}

void MorgenlandState::PayItem(int kind, EventSink* events) {
  SeatData& s = data_.seats[data_.active];
  const int value = data_.items[0];
  s.treasure[kind] = static_cast<uint8_t>(s.treasure[kind] - value);
  data_.bank[kind] = static_cast<uint8_t>(data_.bank[kind] + value);
  data_.kinds_used |= static_cast<uint8_t>(1 << kind);
  std::copy(data_.items.begin() + 1, data_.items.end(), data_.items.begin());
  data_.items.back() = 0;
  --data_.item_count;
  EmitUnits(events, data_.active, kind, -value, "payment");
  if (data_.item_count > 0) return;
  data_.kinds_used = 0;
  if (data_.pro && MayCastSpells(data_, data_.active)) {
    data_.phase = Phase::kBuyer;
    data_.buyer = data_.active;
    return;
  }
  CompletePurchase(events);
}

// The buyer takes the artifact for sale.
void MorgenlandState::CompletePurchase(EventSink* events) {
  const int room = data_.space - kRoom1;
  int artifact;
  if (data_.pro) {
    artifact = data_.face_up[room];
    data_.face_up[room] = -1;
  } else {
    artifact = data_.stack[room][--data_.stack_size[room]];
    data_.stack[room][data_.stack_size[room]] = -1;
  }
  GrantPurchase(artifact, events);
}

// The artifact becomes the buyer's; the last one ends the game at once (rules §7).
void MorgenlandState::GrantPurchase(int artifact, EventSink* events) {
  data_.buyer = -1;
  ++data_.seats[data_.active].owned[artifact];
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* bought = event.mutable_bought();
    bought->set_seat(data_.active);
    bought->set_space(data_.space);
    bought->set_artifact(artifact);
    events->Emit(kEveryone, event,
                 absl::StrCat(SeatName(data_.active), " takes the ", ArtifactName(artifact),
                              " from ", SpaceName(data_.space)));
  }
  if (ArtifactsLeft(data_) == 0) return Finish(events);
  FinishSpace(events);
}

void MorgenlandState::FinishSpace(EventSink* events) {
  int next = data_.space + 1;
  if (next >= kRoom1 + data_.players) return EndRound(events);
  data_.space = static_cast<int8_t>(next);
  RevealSpace(events);
}

// End of round (rules §4.5).
void MorgenlandState::EndRound(EventSink* events) {
  for (int seat = 0; seat < data_.players; ++seat) {
    SeatData& s = data_.seats[seat];
    s.token_space.fill(kInHand);
    s.copies = {};
    s.face_up = 0;
    s.invoked = {};
    s.carpets = {};
    s.parasite_uses = 0;
    s.scroll_spaces = 0;
    s.smuggler_spaces = 0;
    s.entered = false;
    s.djinn = false;
  }
  for (int kind = 0; kind < kKinds; ++kind) {
    for (uint8_t& units : data_.shelves[kind]) {
      data_.bank[kind] = static_cast<uint8_t>(data_.bank[kind] + units);
      units = 0;
    }
  }
  data_.card = -1;
  data_.guard = 0;
  data_.spy = 0;
  data_.taboo = 0;
  data_.last_first = false;
  ++data_.round;
  if (data_.max_rounds > 0 && data_.round >= data_.max_rounds) return Finish(events);
  StartRound(events);
}

void MorgenlandState::Finish(EventSink* events) {
  data_.phase = Phase::kFinished;
  data_.active = -1;
  if (!events) return;
  const Outcome result = outcome();
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* over = event.mutable_game_over();
  std::string text = "game over;";
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& s = data_.seats[seat];
    over->add_artifacts(static_cast<int>(result.scores[seat]));
    over->add_scrolls(s.owned[kScroll]);
    over->add_treasure(Total(s.treasure));
    over->add_ranks(result.ranks[seat]);
    absl::StrAppend(&text, " ", SeatName(seat), ": ", result.scores[seat], " artifacts, rank ",
                    result.ranks[seat], ";");
  }
  events->Emit(kEveryone, event, text);
}

// ---------------------------------------------------------------------------
// Legal moves

void MorgenlandState::AppendPlacements(std::vector<Move>& out) const {
  const SeatData& s = data_.seats[data_.active];
  for (int token = 0; token < kTokens; ++token) {
    if (s.token_space[token] != kInHand) continue;
    for (int space = 0; space < kSpaces; ++space)
      if (SpaceOpenFor(data_, data_.active, space)) out.push_back(PlaceMove(token, space));
  }
}

void MorgenlandState::LegalMoves(std::vector<Move>& out) const {
  out.clear();
  const SeatData& s = data_.seats[data_.active < 0 ? 0 : data_.active];
  switch (data_.phase) {
    case Phase::kPick:
      for (int kind = 0; kind < kKinds; ++kind) out.push_back(KindMove(kind));
      return;
    case Phase::kPlace:
      AppendPlacements(out);
      if (data_.pro) AppendMagic(out);
      return;
    case Phase::kWindow:
    case Phase::kBuyer:
    case Phase::kCounter:
      out.push_back(PassMove());
      AppendMagic(out);
      return;
    case Phase::kBribe:
      out.push_back(PassMove());
      if (Total(s.treasure) >= data_.guard - Strength(data_, data_.active, kGate))
        out.push_back(AcceptMove());
      return;
    case Phase::kPay:
      for (int kind = 0; kind < kKinds; ++kind)
        if (s.treasure[kind] > 0 && !(data_.purpose == Purpose::kTrade && kind == data_.target_token))
          out.push_back(KindMove(kind));
      return;
    case Phase::kTax:
      out.push_back(PassMove());
      out.push_back(AcceptMove());
      return;
    case Phase::kTake:
      for (int kind = 0; kind < kKinds; ++kind)
        if (data_.bank[kind] > 0) out.push_back(KindMove(kind));
      return;
    case Phase::kMarket:
      for (int kind = 0; kind < kKinds; ++kind)
        if (s.treasure[kind] > 0) out.push_back(KindMove(kind));
      out.push_back(PassMove());
      return;
    case Phase::kCaravan:
      if (!data_.choose_camel) {
        out.push_back(PassMove());
        out.push_back(AcceptMove());
        return;
      }
      if (!HasToken(data_, data_.active, kCaravan) && s.carpets[kCaravan] == 0)
        out.push_back(PassMove());
      for (int seat = 0; seat < data_.players; ++seat) out.push_back(SeatMove(seat));
      return;
    case Phase::kTent:
      for (int8_t spell : data_.tent)
        if (spell >= 0) out.push_back(KeepMove(spell));
      std::sort(out.begin(), out.end(), [](Move a, Move b) { return a.id < b.id; });
      return;
    case Phase::kOffer:
      out.push_back(PassMove());
      if (CanBuy(data_.active)) out.push_back(AcceptMove());
      return;
    case Phase::kRoomPay:
      for (int kind = 0; kind < kKinds; ++kind)
        if (ItemKindLegal(kind)) out.push_back(KindMove(kind));
      return;
    case Phase::kChoose:
      AppendMagic(out);
      return;
    case Phase::kFinished:
      return;
  }
}

bool MorgenlandState::ItemKindLegal(int kind) const {
  const SeatData& s = data_.seats[data_.active];
  if ((data_.kinds_used >> kind & 1) || s.treasure[kind] < data_.items[0]) return false;
  std::array<uint8_t, kKinds> rest = s.treasure;
  rest[kind] = static_cast<uint8_t>(rest[kind] - data_.items[0]);
  return CanAssign(rest, data_.items.data() + 1, data_.item_count - 1,
                   static_cast<uint8_t>(data_.kinds_used | (1 << kind)));
}

bool MorgenlandState::IsLegal(Move move) const {
  if (data_.phase == Phase::kFinished || move.id >= kMaxMoveId) return false;
  const int seat = data_.active;
  const SeatData& s = data_.seats[seat];
  const uint32_t id = move.id;
  switch (data_.phase) {
    case Phase::kPick:
      return id < kKinds;
    case Phase::kPlace: {
      if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens) {
        const int token = static_cast<int>(id - kPlaceBase) / 15;
        const int space = static_cast<int>(id - kPlaceBase) % 15;
        return s.token_space[token] == kInHand && SpaceOpenFor(data_, seat, space);
      }
      return data_.pro && MagicLegal(move);
    }
    case Phase::kWindow:
    case Phase::kCounter:
    case Phase::kBuyer:
      return id == kPassId || MagicLegal(move);
    case Phase::kChoose:
      return MagicLegal(move);
    default:
      break;
  }
  // The remaining phases have short move lists.
  std::vector<Move> legal;
  LegalMoves(legal);
  return std::find(legal.begin(), legal.end(), move) != legal.end();
}

// ---------------------------------------------------------------------------
// Apply

void MorgenlandState::ApplyLegal(Move move, EventSink* events) {
  const uint32_t id = move.id;
  if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens && data_.phase == Phase::kPlace)
    return ApplyPlace(static_cast<int>(id - kPlaceBase) / 15, static_cast<int>(id - kPlaceBase) % 15,
                      events);
  if (id < kKinds) return ApplyKind(static_cast<int>(id), events);
  if (id == kPassId || id == kAcceptId) return ApplyPassOrAccept(id == kAcceptId, events);
  if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) {
    MoveCamel(static_cast<int>(id - kSeatBase), events);
    return FinishSpace(events);
  }
  if (id >= kKeepBase && id < kKeepBase + kSpells) return ApplyKeep(static_cast<int>(id - kKeepBase), events);
  ApplyMagic(move, events);
}

void MorgenlandState::ApplyPlace(int token, int space, EventSink* events) {
  const int seat = data_.active;
  SeatData& s = data_.seats[seat];
  s.token_space[token] = static_cast<int8_t>(space);
  const bool spied = (data_.spy & ~(1u << seat)) != 0;
  if (spied) s.face_up |= static_cast<uint8_t>(1 << token);
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* placed = event.mutable_placed();
    const std::string text = absl::StrCat(SeatName(seat), " places a token on ", SpaceName(space));
    FillToken(data_, seat, token, spied, placed->mutable_token());
    if (spied) {
      events->Emit(kEveryone, event, absl::StrCat(text, " face up: ", TokenValue(token)));
    } else {
      events->Emit(AllBut(seat), event, text);
      FillToken(data_, seat, token, true, placed->mutable_token());
      events->Emit(OnlySeat(seat), event, absl::StrCat(text, ": ", TokenValue(token)));
    }
  }
  NextPlacer(events);
}

void MorgenlandState::ApplyKind(int kind, EventSink* events) {
  SeatData& s = data_.seats[data_.active];
  switch (data_.phase) {
    case Phase::kPick: {
      ++s.start[kind];
      if (events) {
        EventDraft<v1::MorgenlandEvent> draft;
        v1::MorgenlandEvent& event = *draft;
        event.mutable_picked()->set_seat(data_.active);
        event.mutable_picked()->set_kind(-1);
        const std::string text = absl::StrCat(SeatName(data_.active), " picks a starting unit");
        events->Emit(AllBut(data_.active), event, text);
        event.mutable_picked()->set_kind(kind);
        events->Emit(OnlySeat(data_.active), event, absl::StrCat(text, ": ", KindName(kind)));
      }
      if (Total(s.start) < 3) return;
      const int next = OrderOf(data_, data_.active) + 1;
      if (next < data_.players) {
        data_.active = static_cast<int8_t>(SeatInOrder(data_, next));
        return;
      }
      // Everyone picked: the picks leave the bank together (only their sum is public).
      for (SeatData& holder : data_.seats) {
        for (int k = 0; k < kKinds; ++k) {
          holder.treasure[k] = holder.start[k];
          data_.bank[k] = static_cast<uint8_t>(data_.bank[k] - holder.start[k]);
        }
      }
      return StartRound(events);
    }
    case Phase::kPay:
      --s.treasure[kind];
      if (data_.purpose == Purpose::kTrade) {
        ++data_.seats[data_.target_seat].treasure[kind];
        EmitUnits(events, data_.target_seat, kind, 1, PurposeName(data_.purpose));
      } else {
        ++data_.bank[kind];
      }
      EmitUnits(events, data_.active, kind, -1, PurposeName(data_.purpose));
      if (--data_.units_left == 0) return AfterUnits(events);
      if (Total(s.treasure) == 0) return AfterUnits(events);
      return;
    case Phase::kTake:
      ++s.treasure[kind];
      --data_.bank[kind];
      EmitUnits(events, data_.active, kind, 1, PurposeName(data_.purpose));
      if (--data_.units_left == 0 || Total(data_.bank) == 0) return AfterUnits(events);
      return;
    case Phase::kMarket:
      --s.treasure[kind];
      ++data_.bank[kind];
      EmitUnits(events, data_.active, kind, -1, "market");
      data_.phase = Phase::kTake;
      data_.purpose = Purpose::kMarketTake;
      data_.units_left = 3;
      if (Total(data_.bank) == 0) return AfterUnits(events);
      return;
    case Phase::kRoomPay:
      return PayItem(kind, events);
    default:
      return;
  }
}

namespace {
// What a pass or an accept answers in each phase that offers one, and how it reads.
struct Question {
  const char* name;
  const char* accepted;
  const char* passed;
};
Question QuestionOf(Phase phase) {
  switch (phase) {
    case Phase::kBribe: return {"bribe", "bribes the guard", "does not bribe the guard"};
    case Phase::kMarket: return {"market", "", "trades nothing at the market"};
    case Phase::kCaravan: return {"camel", "accepts the camel", "leaves the camel"};
    case Phase::kOffer: return {"buy", "buys the artifact", "does not buy the artifact"};
    case Phase::kBuyer: return {"buyer window", "", "casts no spell before taking the artifact"};
    case Phase::kWindow: return {"spell window", "", "casts no spell"};
    case Phase::kCounter: return {"counter", "", "does not counter"};
    case Phase::kTax: return {"tax", "pays the tax", "sets tokens aside instead of paying the tax"};
    default: return {"", "", ""};
  }
}
}  // namespace

// A pass or an accept changes nothing anyone sees in some phases (a spell window passed, a
// purchase accepted before its payment): told as such, every seat and a replay see the move.
void MorgenlandState::EmitDecision(bool accept, EventSink* events) const {
  if (!events) return;
  const Question question = QuestionOf(data_.phase);
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent::Decided* decided = draft->mutable_decided();
  decided->set_seat(data_.active);
  decided->set_accepted(accept);
  decided->set_question(question.name);
  events->Emit(kEveryone, *draft,
               absl::StrCat(SeatName(data_.active), " ", accept ? question.accepted : question.passed));
}

void MorgenlandState::ApplyPassOrAccept(bool accept, EventSink* events) {
  const int seat = data_.active;
  EmitDecision(accept, events);
  switch (data_.phase) {
    case Phase::kBribe: {
      const int bribe = data_.guard - Strength(data_, seat, kGate);
      if (!accept) {
        StayOut(seat, events);
        ++data_.cursor;
        return ResolveGateFrom(events);
      }
      data_.phase = Phase::kPay;
      data_.purpose = Purpose::kBribe;
      data_.units_left = static_cast<uint8_t>(bribe);
      return;
    }
    case Phase::kMarket:
      return FinishSpace(events);
    case Phase::kCaravan:
      if (accept) MoveCamel(seat, events);
      return FinishSpace(events);
    case Phase::kOffer:
      if (accept) return StartPayment(events);
      ++data_.cursor;
      return ResolveRoomFrom(events);
    case Phase::kBuyer:
      return CompletePurchase(events);
    case Phase::kWindow:
      ++data_.passes;
      data_.active = static_cast<int8_t>((data_.active + 1) % data_.players);
      return SkipSilentWindowSeats(events);
    case Phase::kCounter:
      return PassCounter(events);
    case Phase::kTax:
      return ApplyTaxDecision(accept, events);
    default:
      return;
  }
}

// Units paid or taken in full: continue what asked for them.
void MorgenlandState::AfterUnits(EventSink* events) {
  const Purpose purpose = data_.purpose;
  data_.purpose = Purpose::kNone;
  data_.units_left = 0;
  switch (purpose) {
    case Purpose::kBribe:
      EnterPalace(data_.active, data_.guard - Strength(data_, data_.active, kGate), events);
      ++data_.cursor;
      return ResolveGateFrom(events);
    case Purpose::kMarketTake:
      return FinishSpace(events);
    default:
      return ContinueSpell(purpose, events);
  }
}

// The strongest keeps one card; the second card goes to the second strongest, and both of
// them know where it is (rules §8), or face up to the discards.
void MorgenlandState::ApplyKeep(int spell, EventSink* events) {
  const int other = data_.tent[0] == spell ? data_.tent[1] : data_.tent[0];
  const int winner = data_.active, second = data_.tent_second;
  data_.seats[winner].spells |= 1u << spell;
  if (other >= 0 && second >= 0) {
    data_.seats[second].spells |= 1u << other;
    data_.seats[second].known_by[winner] |= 1u << other;
  } else if (other >= 0) {
    data_.discards |= 1u << other;
  }
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* tent = event.mutable_tent();
    tent->set_seat(winner);
    tent->set_second(second);
    const std::string text = absl::StrCat(
        SeatName(winner), " keeps a spell; the other goes ",
        second >= 0 ? absl::StrCat("to ", SeatName(second)) : "to the discards");
    SeatMask told = OnlySeat(winner);
    if (other >= 0 && second >= 0) {
      told |= OnlySeat(second);
      events->Emit(~told, event, text);
      tent->add_spells(other);
      events->Emit(OnlySeat(second), event, absl::StrCat(text, ": ", SpellName(other)));
    } else {
      if (other >= 0) tent->add_spells(other);  // a discarded card is face up
      events->Emit(~told, event,
                   other >= 0 ? absl::StrCat(text, ": ", SpellName(other)) : text);
    }
    tent->clear_spells();
    tent->add_spells(spell);
    if (other >= 0) tent->add_spells(other);
    events->Emit(OnlySeat(winner), event, absl::StrCat(text, " (kept ", SpellName(spell), ")"));
  }
  data_.tent = {-1, -1};
  data_.tent_second = -1;
  FinishSpace(events);
}

// ---------------------------------------------------------------------------
// Outcome

Outcome MorgenlandState::outcome() const {
  PerSeat<double> scores(data_.players);
  PerSeat<std::array<int, 4>> keys(data_.players);  // artifacts, scrolls (pro), units, -player order
  for (int seat = 0; seat < data_.players; ++seat) {
    const SeatData& s = data_.seats[seat];
    const int artifacts = std::accumulate(s.owned.begin(), s.owned.end(), 0);
    scores[seat] = artifacts;
    keys[seat] = {artifacts, data_.pro ? s.owned[kScroll] : 0, Total(s.treasure), -OrderOf(data_, seat)};
  }
  return RankedOutcome(scores, keys, data_.phase == Phase::kFinished);
}

}  // namespace gavel::morgenland
