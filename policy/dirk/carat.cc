// Dirk for Carat (rules: docs/rules/carat.md), computed from the seat's CaratView.
//
// Dirk is greedy, one placement ahead:
// - For every legal placement (tile, space, rotation) it scores the chips that placement
//   completes, by the rules (§6): a chip won by one of Dirk's colours counts +points, a chip
//   won by another seat's colour counts -points, a chip won by a non-player colour or by
//   nobody counts 0. Dirk plays the placement with the best sum.
// - Ties: fewest chips left one tile short (unscored, exactly one empty space around them)
//   whose present diamonds favour another seat (their winning colour, §6, belongs to another
//   seat), since the next player can close them; then the most such chips that favour Dirk;
//   then the lowest move id.
#include <array>
#include <vector>

#include "policy/dirk/dirk.h"
#include "engine/core/proto_util.h"
#include "gavel/v1/carat.pb.h"

namespace gavel::policy::dirk {
namespace {

constexpr int kSize = 6, kChipSize = 7, kColours = 4;
constexpr int kNobody = -1, kOther = -2;  // owners besides Dirk (0) and non-player colours

// Canonical diamond colours (NW, NE, SE, SW) per tile type A..F; 0..3 = R, Y, B, G.
constexpr std::array<std::array<int, 4>, 6> kCanonical = {{
    {0, 3, 2, 1}, {0, 3, 1, 2}, {0, 2, 3, 1}, {0, 2, 1, 3}, {0, 1, 3, 2}, {0, 1, 2, 3}}};

struct Diamond {
  int colour = -1;  // -1: empty space
  int value = 0;
};

// The board as four diamonds per space, with one hypothetical placement on top.
using Board = std::array<std::array<Diamond, 4>, kSize * kSize>;

Board ReadBoard(const v1::CaratView& view) {
  Board board{};
  for (int space = 0; space < std::min(view.board_size(), kSize * kSize); ++space) {
    const v1::CaratSpace& shown = view.board(space);
    if (!shown.has_tile() || shown.corners_size() != 4) continue;
    for (int k = 0; k < 4; ++k)
      board[space][k] = {static_cast<int>(shown.corners(k)) - 1, static_cast<int>(shown.tile().value())};
  }
  return board;
}

// Owner of each colour seen from Dirk: 0 Dirk, kOther another seat, kNobody no seat.
std::array<int, kColours> Owners(const v1::CaratView& view) {
  std::array<int, kColours> owners;
  owners.fill(kNobody);
  for (int seat = 0; seat < view.seats_size(); ++seat)
    for (int colour : view.seats(seat).colours())
      if (colour >= 1 && colour <= kColours) owners[colour - 1] = seat == view.seat() ? 0 : kOther;
  return owners;
}

// The diamonds around chip K(i, j), and how many of its tile spaces are empty.
struct ChipAround {
  std::vector<Diamond> diamonds;
  int empty = 0;
};

ChipAround Around(const Board& board, int i, int j) {
  ChipAround around;
  // (tile row, tile column, corner of that tile touching the chip)
  const std::array<std::array<int, 3>, 4> touching = {{{i - 1, j - 1, 2}, {i - 1, j, 3}, {i, j - 1, 1}, {i, j, 0}}};
  for (const auto& [r, c, corner] : touching) {
    if (r < 0 || r >= kSize || c < 0 || c >= kSize) continue;
    const Diamond& diamond = board[r * kSize + c][corner];
    if (diamond.colour < 0) ++around.empty;
    else around.diamonds.push_back(diamond);
  }
  return around;
}

// The winning colour of §6 (the highest total held by exactly one colour), -1 for nobody.
int Winner(const std::vector<Diamond>& diamonds) {
  std::array<int, kColours> totals{};
  for (const Diamond& d : diamonds) totals[d.colour] += d.value;
  int winner = -1;
  for (int colour = 0; colour < kColours; ++colour) {
    int same = 0;
    for (int other : totals) same += other == totals[colour];
    if (same == 1 && (winner < 0 || totals[colour] > totals[winner])) winner = colour;
  }
  return winner;
}

int Multiplier(const std::vector<Diamond>& diamonds) {
  std::array<bool, kColours> present{};
  for (const Diamond& d : diamonds) present[d.colour] = true;
  int m = 0;
  for (bool p : present) m += p;
  return m;
}

struct Score {
  int gain = 0;          // points to Dirk minus points to other seats, now
  int exposed = 0;       // chips left one tile short favouring another seat
  int held = 0;          // chips left one tile short favouring Dirk
};

Score Evaluate(const v1::CaratView& view, const std::array<int, kColours>& owners, Board board,
               const v1::CaratMove::Place& place) {
  const int type = static_cast<int>(place.tile().type()) - 1;
  const int r = static_cast<int>(place.row()), c = static_cast<int>(place.column());
  const int rot = static_cast<int>(place.rotation() % 4);
  for (int k = 0; k < 4; ++k)
    board[r * kSize + c][k] = {kCanonical[type][(k - rot + 4) % 4], static_cast<int>(place.tile().value())};
  Score score;
  const std::array<std::array<int, 2>, 4> chips = {{{r, c}, {r, c + 1}, {r + 1, c + 1}, {r + 1, c}}};
  for (const auto& [i, j] : chips) {
    const int index = i * kChipSize + j;
    if (index < view.chip_scored_size() && view.chip_scored(index)) continue;
    const ChipAround around = Around(board, i, j);
    const int winner = Winner(around.diamonds);
    const int owner = winner < 0 ? kNobody : owners[winner];
    if (around.empty == 0) {
      const int points = static_cast<int>(index < view.chips_size() ? view.chips(index) : 0) *
                         Multiplier(around.diamonds);
      score.gain += owner == 0 ? points : owner == kOther ? -points : 0;
    } else if (around.empty == 1) {
      score.exposed += owner == kOther;
      score.held += owner == 0;
    }
  }
  return score;
}

bool Better(const Score& a, const Score& b) {
  if (a.gain != b.gain) return a.gain > b.gain;
  if (a.exposed != b.exposed) return a.exposed < b.exposed;
  return a.held > b.held;
}

}  // namespace

uint32_t ChooseCarat(const v1::View& view, const LegalMoves& legal) {
  PooledScratch<v1::CaratView> scratch;  // reused: no allocation per decision in a play-out
  v1::CaratView& carat = *scratch;
  if (!scratch.Unpack(view.view(), "view").ok() || carat.seat() < 0 || carat.seat() >= carat.seats_size())
    return legal.Get(0).id();
  const Board board = ReadBoard(carat);
  const std::array<int, kColours> owners = Owners(carat);
  uint32_t best = legal.Get(0).id();
  bool found = false;
  Score best_score;
  v1::CaratMove detail;  // one message for every move: parsed into, not allocated per move
  for (const v1::Move& move : legal) {
    if (!TryUnpack(move.detail(), &detail) || !detail.has_place()) continue;
    const v1::CaratMove::Place& place = detail.place();
    const int type = static_cast<int>(place.tile().type());
    if (type < 1 || type > 6 || place.row() >= kSize || place.column() >= kSize) continue;
    const Score score = Evaluate(carat, owners, board, place);
    if (!found || Better(score, best_score) || (!Better(best_score, score) && move.id() < best)) {
      found = true;
      best_score = score;
      best = move.id();
    }
  }
  return best;
}

}  // namespace gavel::policy::dirk

GAVEL_REGISTER_DIRK(carat, ChooseCarat)
