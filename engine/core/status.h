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

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gavel {

// INVALID_ARGUMENT prefixed with the game's name: the one shape of every game's decoding and
// validation errors, so a client always sees which game refused its input and why.
absl::Status InvalidInput(absl::string_view game, const auto&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(game, ": ", parts...));
}

}  // namespace gavel
