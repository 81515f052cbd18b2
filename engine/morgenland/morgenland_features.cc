// Learning features for Morgenland, computed from a seat's view only.
#include <algorithm>

#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/morgenland/morgenland.h"
#include "gavel/v1/morgenland.pb.h"

namespace gavel::morgenland {
namespace {

// Observation layout:
//   players one-hot (3), pro, phase one-hot (17), round progress, space one-hot (16),
//   guard, shelves (5 x 4), bank (5), own treasure (5), own tokens in hand (8),
//   own spells (21), per seat relative to the viewer (5 x 10),
//   per space (15 x 3): own strength, best known other strength, hidden other tokens,
//   per room (5 x 8): face-up artifact one-hot (7), stack size.
constexpr int kObservationSize = 3 + 1 + 17 + 1 + 16 + 1 + 20 + 5 + 5 + 8 + 21 + 50 + 45 + 40;
// Move layout: type one-hot (12), kind one-hot (5), token value, space one-hot (15),
// spell one-hot (21), artifact one-hot (6), units on the best shelf of a cave move,
// own strength there after the move, best known other strength there. Spell moves set
// the space (target or destination), token and artifact fields their targets name.
constexpr int kMoveSize = 12 + 5 + 1 + 15 + 21 + 6 + 3;

float Unit(const v1::MorgenlandUnits& units, int i) {
  return i < units.units_size() ? static_cast<float>(units.units(i)) : 0.f;
}

struct SpaceSummary {
  std::array<int, kSpaces> own{}, best_other{}, hidden{};
};

SpaceSummary Summarize(const v1::MorgenlandView& view) {
  SpaceSummary summary;
  std::array<std::array<int, kSpaces>, kMaxPlayers> strength{};
  for (int seat = 0; seat < view.seats_size() && seat < kMaxPlayers; ++seat) {
    for (const auto& token : view.seats(seat).tokens()) {
      if (token.space() < 0 || token.space() >= kSpaces) continue;
      if (token.value() == 0) {
        ++summary.hidden[token.space()];
      } else {
        strength[seat][token.space()] += static_cast<int>(token.value() * (1 + std::min(token.copies(), 2u)));
      }
    }
    for (int space = 0; space < kSpaces; ++space)
      strength[seat][space] += 3 * static_cast<int>(Unit(view.seats(seat).carpets(), space));
  }
  for (int seat = 0; seat < view.seats_size() && seat < kMaxPlayers; ++seat)
    for (int space = 0; space < kSpaces; ++space) {
      if (seat == view.seat()) summary.own[space] = strength[seat][space];
      else summary.best_other[space] = std::max(summary.best_other[space], strength[seat][space]);
    }
  return summary;
}

// Players, variant, phase, round, tallied space, guard, caves, bank; then the viewer's own
// treasure, tokens in hand and spells. Returns the next free index.
size_t ObserveTable(const v1::MorgenlandView& view, std::vector<float>& obs) {
  const int players = static_cast<int>(view.players());
  size_t at = 0;
  obs[at + players - 3] = 1;
  at += 3;
  obs[at++] = view.pro() ? 1.f : 0.f;
  obs[at + std::clamp(static_cast<int>(view.phase()), 0, 16)] = 1;
  at += 17;
  obs[at++] = static_cast<float>(view.round()) / 40.f;
  obs[at + std::clamp(view.space() + 1, 0, 15)] = 1;
  at += 16;
  obs[at++] = static_cast<float>(view.guard()) / 10.f;
  for (int kind = 0; kind < kKinds; ++kind)
    for (int shelf = 0; shelf < kMaxShelves; ++shelf) obs[at++] = Unit(view.shelves(kind), shelf) / 6.f;
  for (int kind = 0; kind < kKinds; ++kind) obs[at++] = Unit(view.bank(), kind) / 29.f;
  const auto& own = view.seats(view.seat());
  for (int kind = 0; kind < kKinds; ++kind) obs[at++] = Unit(own.treasure(), kind) / 10.f;
  for (const auto& token : own.tokens())
    if (token.space() == kInHand && token.index() < kTokens) obs[at + token.index()] = 1;
  at += 8;
  for (int spell = 0; spell < kSpells; ++spell) obs[at++] = (own.spells() >> spell & 1) ? 1.f : 0.f;
  return at;
}

// Every seat, relative to the viewer; then per space the strengths, per room its artifacts.
void ObserveSeatsAndSpaces(const v1::MorgenlandView& view, const SpaceSummary& summary,
                           std::vector<float>& obs, size_t at) {
  const int players = static_cast<int>(view.players());
  for (int offset = 0; offset < kMaxPlayers; ++offset, at += 10) {
    if (offset >= players) continue;
    const int seat = (view.seat() + offset) % players;
    const auto& shown = view.seats(seat);
    obs[at] = 1;
    obs[at + 1] = static_cast<float>(shown.artifacts()) / 10.f;
    obs[at + 2] = static_cast<float>(shown.treasure_total()) / 30.f;
    obs[at + 3] = Unit(shown.owned(), kScroll) / 5.f;
    obs[at + 4] = seat == view.camel() ? 1.f : 0.f;
    obs[at + 5] = shown.entered() ? 1.f : 0.f;
    obs[at + 6] = shown.djinn() ? 1.f : 0.f;
    obs[at + 7] = static_cast<float>(shown.spell_count()) / 5.f;
    obs[at + 8] = Unit(shown.invoked(), kLamp);
    obs[at + 9] = static_cast<float>(shown.tokens_size()) / 8.f;
  }
  for (int space = 0; space < kSpaces; ++space) {
    obs[at++] = static_cast<float>(summary.own[space]) / 20.f;
    obs[at++] = static_cast<float>(summary.best_other[space]) / 20.f;
    obs[at++] = static_cast<float>(summary.hidden[space]) / 8.f;
  }
  for (int room = 0; room < kMaxPlayers; ++room, at += 8) {
    if (room >= view.rooms_size()) continue;
    obs[at + std::clamp(view.rooms(room).face_up() + 1, 0, 6)] = 1;
    obs[at + 7] = static_cast<float>(view.rooms(room).stack_size()) / 6.f;
  }
}

// What a move names: its type (one-hot index) and the kind, token, space, spell and artifact
// it refers to (-1: none).
struct MoveParts {
  int type = 11, kind = -1, token = -1, space = -1, spell = -1, artifact = -1;
};

// The space, token or artifact a spell's target names.
void SpellTargetParts(int target, MoveParts& parts) {
  switch (parts.spell) {
    case kDragonLeaves: case kDragonsReturn: case kLunarEclipse: case kSolarEclipse:
    case kMirage: case kTaboo:
      parts.space = target % kSpaces;
      break;
    case kSecondChance:
      parts.token = std::min(target / kSpaces, kTokens - 1);
      parts.space = target % kSpaces;
      break;
    case kTeleport:
      parts.space = target % kSpaces;  // the destination
      break;
    case kApprentice:
      parts.artifact = target % kArtifactTypes;
      break;
    case kParasite:
      parts.artifact = std::min(target / 100, kArtifactTypes - 1);
      break;
    default:
      break;
  }
}

MoveParts PartsOf(Move move) {
  const uint32_t id = move.id;
  MoveParts p;
  if (id < kKinds) { p.type = 0; p.kind = static_cast<int>(id); }
  else if (id == kPassId) p.type = 1;
  else if (id == kAcceptId) p.type = 2;
  else if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) p.type = 3;
  else if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens) {
    p.type = 4;
    p.token = static_cast<int>(id - kPlaceBase) / 15;
    p.space = static_cast<int>(id - kPlaceBase) % 15;
  } else if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes) { p.type = 5; p.artifact = static_cast<int>(id - kInvokeBase); }
  else if (id >= kDoubleBase && id < kDoubleBase + kTokens) { p.type = 6; p.artifact = kDouble; p.token = static_cast<int>(id - kDoubleBase); }
  else if (id == kCounterId) { p.type = 7; p.artifact = kCounterspell; }
  else if (id >= kKeepBase && id < kKeepBase + kSpells) { p.type = 8; p.spell = static_cast<int>(id - kKeepBase); }
  else if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) p.type = 9;
  else if (id >= kSpellBase && id < kMaxMoveId) {
    p.type = 10;
    p.spell = SpellOf(move);
    SpellTargetParts(TargetOf(move), p);
  }
  return p;
}

void FeaturizeMove(const v1::MorgenlandView& view, const SpaceSummary& summary, Move move, float* f) {
  const MoveParts p = PartsOf(move);
  f[p.type] = 1;
  if (p.kind >= 0) f[12 + p.kind] = 1;
  if (p.token >= 0) f[17] = static_cast<float>(TokenValue(p.token)) / 9.f;
  if (p.space >= 0) f[18 + p.space] = 1;
  if (p.spell >= 0) f[33 + p.spell] = 1;
  if (p.artifact >= 0) f[54 + p.artifact] = 1;
  if (p.space >= 0) {
    if (IsCave(p.space)) f[60] = Unit(view.shelves(p.space), 0) / 6.f;
    f[61] = static_cast<float>(summary.own[p.space] + (p.token >= 0 ? TokenValue(p.token) : 0)) / 20.f;
    f[62] = static_cast<float>(summary.best_other[p.space]) / 20.f;
  }
}

}  // namespace

absl::Status FeaturizeMorgenland(const v1::View& view_proto, std::span<const Move> moves,
                                 Features* out) {
  PooledScratch<v1::MorgenlandView> scratch;  // reused: no allocation per decision
  GAVEL_RETURN_IF_ERROR(scratch.Unpack(view_proto.view(), "the morgenland view"));
  const v1::MorgenlandView& view = *scratch;
  const int players = static_cast<int>(view.players());
  if (players < 3 || players > kMaxPlayers || view.seats_size() != players || view.seat() < 0 ||
      view.seat() >= players || view.shelves_size() != kKinds)
    return absl::InvalidArgumentError("morgenland: the view is malformed");
  out->observation.assign(kObservationSize, 0.f);
  const size_t at = ObserveTable(view, out->observation);
  const SpaceSummary summary = Summarize(view);
  ObserveSeatsAndSpaces(view, summary, out->observation, at);
  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  for (size_t i = 0; i < moves.size(); ++i)
    FeaturizeMove(view, summary, moves[i], out->moves.data() + i * kMoveSize);
  return absl::OkStatus();
}

}  // namespace gavel::morgenland
