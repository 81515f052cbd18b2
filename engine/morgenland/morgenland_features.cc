// Learning features for Morgenland, computed from a seat's view only.
#include <algorithm>

#include "engine/core/proto_util.h"
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

}  // namespace

absl::Status FeaturizeMorgenland(const v1::View& view_proto, std::span<const Move> moves,
                                 Features* out) {
  v1::MorgenlandView view;
  if (auto status = UnpackAny(view_proto.view(), &view, "the morgenland view"); !status.ok())
    return status;
  const int players = static_cast<int>(view.players());
  if (players < 3 || players > kMaxPlayers || view.seats_size() != players || view.seat() < 0 ||
      view.seat() >= players || view.shelves_size() != kKinds)
    return absl::InvalidArgumentError("morgenland: the view is malformed");
  const int viewer = view.seat();
  std::vector<float>& obs = out->observation;
  obs.assign(kObservationSize, 0.f);
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
  const auto& own = view.seats(viewer);
  for (int kind = 0; kind < kKinds; ++kind) obs[at++] = Unit(own.treasure(), kind) / 10.f;
  for (const auto& token : own.tokens())
    if (token.space() == kInHand && token.index() < kTokens) obs[at + token.index()] = 1;
  at += 8;
  for (int spell = 0; spell < kSpells; ++spell) obs[at++] = (own.spells() >> spell & 1) ? 1.f : 0.f;
  for (int offset = 0; offset < kMaxPlayers; ++offset, at += 10) {
    if (offset >= players) continue;
    const int seat = (viewer + offset) % players;
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
  const SpaceSummary summary = Summarize(view);
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

  out->move_size = kMoveSize;
  out->moves.assign(moves.size() * kMoveSize, 0.f);
  for (size_t i = 0; i < moves.size(); ++i) {
    float* f = out->moves.data() + i * kMoveSize;
    const uint32_t id = moves[i].id;
    int type = 11, kind = -1, token = -1, space = -1, spell = -1, artifact = -1;
    if (id < kKinds) { type = 0; kind = static_cast<int>(id); }
    else if (id == kPassId) type = 1;
    else if (id == kAcceptId) type = 2;
    else if (id >= kSeatBase && id < kSeatBase + kMaxPlayers) type = 3;
    else if (id >= kPlaceBase && id < kPlaceBase + 15 * kTokens) {
      type = 4;
      token = static_cast<int>(id - kPlaceBase) / 15;
      space = static_cast<int>(id - kPlaceBase) % 15;
    } else if (id >= kInvokeBase && id < kInvokeBase + kArtifactTypes) { type = 5; artifact = static_cast<int>(id - kInvokeBase); }
    else if (id >= kDoubleBase && id < kDoubleBase + kTokens) { type = 6; artifact = kDouble; token = static_cast<int>(id - kDoubleBase); }
    else if (id == kCounterId) { type = 7; artifact = kCounterspell; }
    else if (id >= kKeepBase && id < kKeepBase + kSpells) { type = 8; spell = static_cast<int>(id - kKeepBase); }
    else if (id >= kPickArtifactBase && id <= kPickArtifactBase + kMaxStack) type = 9;
    else if (id >= kSpellBase && id < kMaxMoveId) {
      type = 10;
      spell = SpellOf(moves[i]);
      const int target = TargetOf(moves[i]);
      switch (spell) {
        case kDragonLeaves: case kDragonsReturn: case kLunarEclipse: case kSolarEclipse:
        case kMirage: case kTaboo:
          space = target % kSpaces;
          break;
        case kSecondChance:
          token = std::min(target / kSpaces, kTokens - 1);
          space = target % kSpaces;
          break;
        case kTeleport:
          space = target % kSpaces;  // the destination
          break;
        case kApprentice:
          artifact = target % kArtifactTypes;
          break;
        case kParasite:
          artifact = std::min(target / 100, kArtifactTypes - 1);
          break;
        default:
          break;
      }
    }
    f[type] = 1;
    if (kind >= 0) f[12 + kind] = 1;
    if (token >= 0) f[17] = static_cast<float>(TokenValue(token)) / 9.f;
    if (space >= 0) f[18 + space] = 1;
    if (spell >= 0) f[33 + spell] = 1;
    if (artifact >= 0) f[54 + artifact] = 1;
    if (space >= 0) {
      if (IsCave(space)) f[60] = Unit(view.shelves(space), 0) / 6.f;
      f[61] = static_cast<float>(summary.own[space] + (token >= 0 ? TokenValue(token) : 0)) / 20.f;
      f[62] = static_cast<float>(summary.best_other[space]) / 20.f;
    }
  }
  return absl::OkStatus();
}

}  // namespace gavel::morgenland
