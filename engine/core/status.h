#pragma once
// Error propagation for absl::Status, the one pair of macros the whole project uses.
#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define GAVEL_RETURN_IF_ERROR(expr)                             \
  do {                                                          \
    if (::absl::Status gavel_status_ = (expr); !gavel_status_.ok()) \
      return gavel_status_;                                     \
  } while (false)

#define GAVEL_STATUS_CONCAT_INNER_(a, b) a##b
#define GAVEL_STATUS_CONCAT_(a, b) GAVEL_STATUS_CONCAT_INNER_(a, b)

// `lhs = *expr` for an absl::StatusOr `expr`, or returns its error. `lhs` may declare a
// variable: GAVEL_ASSIGN_OR_RETURN(auto state, game.Deserialize(proto));
#define GAVEL_ASSIGN_OR_RETURN(lhs, expr) \
  GAVEL_ASSIGN_OR_RETURN_IMPL_(GAVEL_STATUS_CONCAT_(gavel_statusor_, __LINE__), lhs, expr)
#define GAVEL_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gavel {

// The name of the part of a message a decoder reads, for its error messages: "the supply",
// "seat 2's hand", "seat 1's edge at position 3", "cushion 2's card". It holds views and
// numbers only and is formatted only when an error is reported, so decoding a valid state
// builds no strings. The views must outlive the name: literals, or strings alive for the call.
class PartName {
 public:
  PartName(const char* part) : part_(part) {}  // implicit: a literal names a part
  PartName(absl::string_view part) : part_(part) {}
  // "seat <seat>'s <part>[ <index>]"
  PartName(int seat, absl::string_view part, int index = kNone) : seat_(seat), part_(part), index_(index) {}
  // "<part> <index><suffix>"
  static PartName Numbered(absl::string_view part, int index, absl::string_view suffix = "") {
    PartName name(part);
    name.index_ = index;
    name.suffix_ = suffix;
    return name;
  }

  std::string str() const {
    std::string out;
    if (seat_ != kNone) absl::StrAppend(&out, "seat ", seat_, "'s ");
    absl::StrAppend(&out, part_);
    if (index_ != kNone) absl::StrAppend(&out, " ", index_);
    absl::StrAppend(&out, suffix_);
    return out;
  }

 private:
  static constexpr int kNone = -1;
  int seat_ = kNone;
  absl::string_view part_;
  int index_ = kNone;
  absl::string_view suffix_;
};

namespace status_internal {
inline std::string ErrorPiece(const PartName& name) { return name.str(); }
template <typename Piece>
const Piece& ErrorPiece(const Piece& piece) { return piece; }
}  // namespace status_internal

// INVALID_ARGUMENT prefixed with the game's name: the one shape of every game's decoding and
// validation errors, so a client always sees which game refused its input and why. A part may
// be a PartName.
absl::Status InvalidInput(absl::string_view game, const auto&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(game, ": ", status_internal::ErrorPiece(parts)...));
}

}  // namespace gavel
