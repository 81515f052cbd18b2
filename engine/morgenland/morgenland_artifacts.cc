// The six artifacts (rules §6.3): one rule per artifact, its legality and its effect.
#include <array>

#include "absl/strings/str_cat.h"
#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {

bool UnderLimit(const SeatData& seat) { return InvokedCount(seat) < ArtifactLimit(seat); }

bool CarpetAllowed(const Data& data, int seat, int space) {
  if (data.taboo >> space & 1) return false;
  if (IsCave(space)) {
    for (uint8_t units : data.shelves[space])
      if (units > 0) return true;
    return false;
  }
  if (IsRoom(space))
    return data.face_up[space - kRoom1] >= 0 && data.seats[seat].entered;
  return true;
}

namespace {

bool Available(const SeatData& s, int artifact) {
  return s.owned[artifact] > s.invoked[artifact] && UnderLimit(s);
}

bool InTally(const Data& data) { return data.phase == Phase::kWindow; }

// Each rule: may `seat` invoke it now (with `token` for Double)?
bool LampLegal(const Data& data, int seat, int) {
  const SeatData& s = data.seats[seat];
  return (data.phase == Phase::kPlace || InTally(data)) && s.invoked[kLamp] == 0 &&
         s.spells != 0 && Available(s, kLamp);
}

bool CounterspellLegal(const Data& data, int seat, int) {
  return data.phase == Phase::kCounter && data.pending_count > 0 &&
         data.pending[data.pending_count - 1].caster != seat &&
         Available(data.seats[seat], kCounterspell);
}

bool DoubleLegal(const Data& data, int seat, int token) {
  return InTally(data) && token >= 0 && token < kTokens &&
         data.seats[seat].token_space[token] == data.space && Available(data.seats[seat], kDouble);
}

bool CarpetLegal(const Data& data, int seat, int) {
  return InTally(data) && CarpetAllowed(data, seat, data.space) &&
         Available(data.seats[seat], kCarpet);
}

// A Key is pointless (so illegal) for a seat whose gate strength already beats the guard.
bool KeyLegal(const Data& data, int seat, int) {
  return InTally(data) && data.space == kGate && !data.seats[seat].entered &&
         Strength(data, seat, kGate) < data.guard && Available(data.seats[seat], kKey);
}

bool ScrollLegal(const Data& data, int seat, int) {
  const SeatData& s = data.seats[seat];
  return InTally(data) && data.scroll_power && data.space != kGate &&
         !(s.scroll_spaces >> data.space & 1) && HasPresence(data, seat, data.space) &&
         Available(s, kScroll);
}

using LegalFn = bool (*)(const Data&, int, int);
constexpr std::array<LegalFn, kArtifactTypes> kLegal = {LampLegal,   CounterspellLegal,
                                                        DoubleLegal, CarpetLegal,
                                                        KeyLegal,    ScrollLegal};

// Decodes an artifact move into (artifact, token); false if it is none.
bool DecodeArtifactMove(Move move, int* artifact, int* token) {
  *token = -1;
  if (move.id == kCounterId) {
    *artifact = kCounterspell;
    return true;
  }
  if (move.id >= kDoubleBase && move.id < kDoubleBase + kTokens) {
    *artifact = kDouble;
    *token = static_cast<int>(move.id - kDoubleBase);
    return true;
  }
  if (move.id >= kInvokeBase && move.id < kInvokeBase + kArtifactTypes) {
    *artifact = static_cast<int>(move.id - kInvokeBase);
    return *artifact != kCounterspell && *artifact != kDouble;
  }
  return false;
}

}  // namespace

bool ArtifactPowerLegal(const Data& data, int seat, int artifact, int token) {
  return kLegal[artifact](data, seat, token);
}

void AppendArtifactMoves(const Data& data, int seat, std::vector<Move>& out) {
  for (int artifact : {kLamp, kCarpet, kKey, kScroll})
    if (kLegal[artifact](data, seat, -1)) out.push_back(InvokeMove(artifact));
  for (int token = 0; token < kTokens; ++token)
    if (DoubleLegal(data, seat, token)) out.push_back(DoubleMove(token));
  if (CounterspellLegal(data, seat, -1)) out.push_back(CounterMove());
}

bool ArtifactMoveLegal(const Data& data, int seat, Move move) {
  int artifact, token;
  return DecodeArtifactMove(move, &artifact, &token) && kLegal[artifact](data, seat, token);
}

// The effect of an artifact power for `seat`, whether invoked or copied by Parasite.
void MorgenlandState::ApplyPower(int seat, int artifact, int token, EventSink* events) {
  SeatData& s = data_.seats[seat];
  switch (artifact) {
    case kDouble:
      ++s.copies[token];
      break;
    case kCarpet:
      ++s.carpets[data_.space];
      break;
    case kKey:
      s.entered = true;
      break;
    case kScroll:
      s.scroll_spaces |= static_cast<uint16_t>(1 << data_.space);
      break;
    default:
      break;  // Lamp: spells become playable; Counterspell: handled by the counter window
  }
  if (events) {
    EventDraft<v1::MorgenlandEvent> draft;
    v1::MorgenlandEvent& event = *draft;
    auto* invoked = event.mutable_invoked();
    invoked->set_seat(seat);
    invoked->set_artifact(artifact);
    invoked->set_space(data_.space);
    invoked->set_token(token);
    events->Emit(kEveryone, event,
                 absl::StrCat("seat ", seat, " uses the ", ArtifactName(artifact),
                              data_.space >= 0 ? absl::StrCat(" in ", SpaceName(data_.space)) : "",
                              token >= 0 ? absl::StrCat(" on its ", TokenValue(token)) : ""));
  }
}

void MorgenlandState::ApplyArtifactMove(Move move, EventSink* events) {
  int artifact = kLamp, token = -1;
  DecodeArtifactMove(move, &artifact, &token);
  const int seat = data_.active;
  ++data_.seats[seat].invoked[artifact];
  if (artifact == kCounterspell) {
    ApplyPower(seat, artifact, token, events);
    return Counter(seat, events);
  }
  if (data_.phase == Phase::kWindow) data_.priority = static_cast<int8_t>(seat);
  ApplyPower(seat, artifact, token, events);
  ReturnToWindow(events);
}

}  // namespace gavel::morgenland
