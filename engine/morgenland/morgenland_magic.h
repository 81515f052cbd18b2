#pragma once
// Pro magic (rules §6): artifacts, spells and the windows in which seats use them.
#include <string>
#include <vector>

#include "engine/morgenland/morgenland.h"

namespace gavel::morgenland {

// ---------------------------------------------------------------------------
// Artifacts (morgenland_artifacts.cc): each power with its legality and effect.

// Whether `seat` may invoke one more artifact this round.
bool UnderLimit(const SeatData& seat);
// Magic moves of the artifacts, appended in id order.
void AppendArtifactMoves(const Data& data, int seat, std::vector<Move>& out);
bool ArtifactMoveLegal(const Data& data, int seat, Move move);
// Whether `seat` may use `artifact`'s power now (token: Double's token).
bool ArtifactPowerLegal(const Data& data, int seat, int artifact, int token);
// Whether a Carpet (or Parasite copying it) may be added for `seat` in `space`.
bool CarpetAllowed(const Data& data, int seat, int space);

// ---------------------------------------------------------------------------
// Spells (morgenland_spells.cc): one rule per spell, with targets, legality and effect.

const char* SpellName(int spell);
const char* ArtifactName(int artifact);
const char* SpaceName(int space);
const char* KindName(int kind);

// Whether `seat` may play spells this round: it holds an invoked Lamp and a spell.
bool MayCastSpells(const Data& data, int seat);
void AppendSpellMoves(const Data& data, int seat, std::vector<Move>& out);
bool SpellMoveLegal(const Data& data, int seat, Move move);
std::string SpellMoveText(const Data& data, Move move);

// Whether a pending spell's targets have a shape its resolution can use (validation).
bool PendingWellFormed(const Data& data, const Pending& spell);
// Units a taxed seat owes now (City Tax: 2 for its next token; Sultan's Tax: its room
// tokens), or -1 when nothing is due.
int TaxDue(const Data& data, int seat);

// Whether the seat is asked in a tally window (rules §6.2): it has a legal magic action,
// or holds an invoked Lamp and a spell.
bool AskedInWindow(const Data& data, int seat);
// Whether the seat is asked in a counter window.
bool AskedToCounter(const Data& data, int seat);

}  // namespace gavel::morgenland
