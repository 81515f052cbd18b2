// Pro magic windows (rules §6.2): who may act when, the counter window, and the return to
// the window an action was taken in.
#include "engine/morgenland/morgenland_magic.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {

const char* SpaceName(int space) {
  static constexpr std::array<const char*, kSpaces> kNames = {
      "CAVE_R", "CAVE_W", "CAVE_B", "CAVE_K", "CAVE_Y", "TENT",  "DJINN", "MARKET",
      "CARAVAN", "GATE", "ROOM1",  "ROOM2",  "ROOM3",  "ROOM4", "ROOM5"};
  return space >= 0 && space < kSpaces ? kNames[space] : "nowhere";
}

const char* KindName(int kind) {
  static constexpr std::array<const char*, kKinds> kNames = {"crowns", "pearls", "gems",
                                                             "goblets", "gold bars"};
  return kind >= 0 && kind < kKinds ? kNames[kind] : "?";
}

const char* ArtifactName(int artifact) {
  static constexpr std::array<const char*, kArtifactTypes> kNames = {
      "Lamp", "Counterspell", "Double", "Flying Carpet", "Key", "Scroll"};
  return artifact >= 0 && artifact < kArtifactTypes ? kNames[artifact] : "?";
}

const char* PurposeName(Purpose purpose) {
  switch (purpose) {
    case Purpose::kBribe: return "bribe";
    case Purpose::kMarketTake: return "market";
    case Purpose::kCharity: return "Charity";
    case Purpose::kDonation: return "Donation";
    case Purpose::kCityTax: return "City Tax";
    case Purpose::kSultansTax: return "Sultan's Tax";
    case Purpose::kTeleport: return "Teleport";
    case Purpose::kTrade: return "Trade";
    case Purpose::kNone: break;
  }
  return "";
}

bool AskedInWindow(const Data& data, int seat) {
  const SeatData& s = data.seats[seat];
  if (s.spells != 0 && (s.invoked[kLamp] > 0 || ArtifactPowerLegal(data, seat, kLamp, -1)))
    return true;
  for (int artifact : {kCarpet, kKey, kScroll})
    if (ArtifactPowerLegal(data, seat, artifact, -1)) return true;
  for (int token = 0; token < kTokens; ++token)
    if (ArtifactPowerLegal(data, seat, kDouble, token)) return true;
  return false;
}

bool AskedToCounter(const Data& data, int seat) {
  if (ArtifactPowerLegal(data, seat, kCounterspell, -1)) return true;
  const SeatData& s = data.seats[seat];
  if (s.invoked[kLamp] == 0 || s.spells == 0) return false;
  // Lamp and spells: asked whenever an opponent invoked a Counterspell (Parasite might copy it).
  for (int other = 0; other < data.players; ++other)
    if (other != seat && data.seats[other].invoked[kCounterspell] > 0) return true;
  return false;
}

void MorgenlandState::AppendMagic(std::vector<Move>& out) const {
  const int seat = data_.active;
  if (data_.phase == Phase::kChoose) {
    const int room = data_.target_space - kRoom1;
    for (int position = 0; position < data_.stack_size[room]; ++position)
      out.push_back(PickArtifactMove(position));
    const bool abracadabra = data_.pending[data_.pending_count - 1].spell == kAbracadabra;
    if (abracadabra && data_.face_up[room] >= 0) out.push_back(PickArtifactMove(kMaxStack));
    return;
  }
  AppendArtifactMoves(data_, seat, out);
  AppendSpellMoves(data_, seat, out);
}

bool MorgenlandState::MagicLegal(Move move) const {
  const int seat = data_.active;
  if (data_.phase == Phase::kChoose) {
    if (move.id < kPickArtifactBase || move.id > kPickArtifactBase + kMaxStack) return false;
    const int position = static_cast<int>(move.id - kPickArtifactBase);
    const int room = data_.target_space - kRoom1;
    if (position < data_.stack_size[room]) return true;
    return position == kMaxStack && data_.face_up[room] >= 0 &&
           data_.pending[data_.pending_count - 1].spell == kAbracadabra;
  }
  if (move.id >= kSpellBase) return SpellMoveLegal(data_, seat, move);
  return ArtifactMoveLegal(data_, seat, move);
}

void MorgenlandState::ApplyMagic(Move move, EventSink* events) {
  if (data_.phase == Phase::kChoose)
    return ApplyChoice(static_cast<int>(move.id - kPickArtifactBase), events);
  if (move.id >= kSpellBase) return ApplySpellMove(move, events);
  ApplyArtifactMove(move, events);
}

void MorgenlandState::PlaySpell(int seat, int spell, int target, int copied, EventSink* events) {
  SeatData& s = data_.seats[seat];
  s.spells &= ~(1u << spell);
  for (uint32_t& known : s.known_by) known &= ~(1u << spell);
  if (data_.phase == Phase::kWindow) data_.priority = static_cast<int8_t>(seat);
  Pending& pending = data_.pending[data_.pending_count++];
  pending = Pending{static_cast<int8_t>(spell), static_cast<int8_t>(seat),
                    static_cast<int8_t>(copied), static_cast<uint16_t>(target), 0};
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* played = event.mutable_spell();
    played->set_seat(seat);
    played->set_spell(spell);
    played->set_target(target);
    played->set_stage("played");
    played->set_by(-1);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " plays ", SpellMoveText(data_, SpellMove(spell, target))));
  }
  data_.phase = Phase::kCounter;
  AdvanceCounter(events);
}

// Asks the next seat able to counter, or resolves the spell when nobody is left.
void MorgenlandState::AdvanceCounter(EventSink* events) {
  Pending& top = data_.pending[data_.pending_count - 1];
  for (; top.asked < data_.players; ++top.asked) {
    const int seat = SeatInOrder(data_, top.asked);
    if (seat == top.caster || !AskedToCounter(data_, seat)) continue;
    data_.phase = Phase::kCounter;
    data_.active = static_cast<int8_t>(seat);
    return;
  }
  ResolvePending(top, events);
}

void MorgenlandState::PassCounter(EventSink* events) {
  ++data_.pending[data_.pending_count - 1].asked;
  AdvanceCounter(events);
}

void MorgenlandState::EmitSpellStage(EventSink* events, const Pending& spell, const char* stage,
                                     int by) const {
  if (!events) return;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* detail = event.mutable_spell();
  detail->set_seat(spell.caster);
  detail->set_spell(spell.spell);
  detail->set_target(spell.target);
  detail->set_stage(stage);
  detail->set_by(by);
  events->Emit(kEveryone, event,
               by >= 0 ? absl::StrCat("seat ", spell.caster, "'s ", SpellName(spell.spell),
                                      " is countered by seat ", by)
                       : absl::StrCat("seat ", spell.caster, "'s ", SpellName(spell.spell), " ",
                                      stage));
}

// The top pending spell is cancelled: discarded with no effect and no cost.
void MorgenlandState::Counter(int seat, EventSink* events) {
  const Pending cancelled = data_.pending[--data_.pending_count];
  data_.pending[data_.pending_count] = Pending{};
  data_.discards |= 1u << cancelled.spell;
  EmitSpellStage(events, cancelled, "countered", seat);
  ReturnToWindow(events);
}

void MorgenlandState::FinishSpell(EventSink* events) {
  const Pending done = data_.pending[--data_.pending_count];
  data_.pending[data_.pending_count] = Pending{};
  data_.discards |= 1u << done.spell;
  EmitSpellStage(events, done, "resolved", -1);
  ReturnToWindow(events);
}

void MorgenlandState::ReturnToWindow(EventSink* events) {
  data_.purpose = Purpose::kNone;
  data_.units_left = 0;
  if (data_.pending_count > 0) {
    // A Parasite counter was cancelled: the first counter window goes on.
    data_.phase = Phase::kCounter;
    return PassCounter(events);
  }
  data_.resume_seat = 0;
  data_.target_seat = data_.target_token = data_.target_space = -1;
  if (data_.buyer >= 0) {
    data_.phase = Phase::kBuyer;
    data_.active = data_.buyer;
    return;
  }
  if (data_.space < 0) {
    data_.phase = Phase::kPlace;
    data_.active = data_.placer;
    return;
  }
  data_.phase = Phase::kWindow;
  data_.passes = 0;
  data_.active = static_cast<int8_t>((data_.priority + 1) % data_.players);
  SkipSilentWindowSeats(events);
}

void MorgenlandState::MoveToken(int seat, int token, int dest, EventSink* events) {
  SeatData& s = data_.seats[seat];
  const int from = s.token_space[token];
  s.token_space[token] = static_cast<int8_t>(dest);
  s.copies[token] = 0;
  if (dest == data_.space) s.face_up |= static_cast<uint8_t>(1 << token);
  if (!events) return;
  const bool shown = s.face_up >> token & 1;
  EventDraft<v1::MorgenlandEvent> draft;
  v1::MorgenlandEvent& event = *draft;
  auto* token_proto = event.mutable_placed()->mutable_token();
  token_proto->set_seat(seat);
  token_proto->set_space(dest);
  token_proto->set_face_up(shown);
  const std::string text = absl::StrCat("seat ", seat, "'s token moves from ", SpaceName(from),
                                        " to ", SpaceName(dest));
  if (shown) {
    token_proto->set_index(token);
    token_proto->set_value(TokenValue(token));
    events->Emit(kEveryone, event, absl::StrCat(text, " (", TokenValue(token), ")"));
    return;
  }
  events->Emit(AllBut(seat), event, text);
  token_proto->set_index(token);
  token_proto->set_value(TokenValue(token));
  events->Emit(OnlySeat(seat), event, absl::StrCat(text, " (", TokenValue(token), ")"));
}

}  // namespace gavel::morgenland
