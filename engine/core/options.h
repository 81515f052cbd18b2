#pragma once
// Per-game options: each game declares its options with defaults; a request names values
// as strings; Resolve checks them and fills in the defaults.
#include <map>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace gavel {

struct OptionSpec {
  std::string name;
  std::string description;
  std::vector<std::string> choices;  // empty: an integer in [min_int, max_int]
  int min_int = 0;
  int max_int = 0;
  std::string default_value;
};

using OptionMap = std::map<std::string, std::string, std::less<>>;

// A complete, checked set of option values for one game.
class Options {
 public:
  Options() = default;
  // Checks every given option against the specs (unknown names, values outside the
  // choices or range) and adds the defaults of the ones not given.
  static absl::StatusOr<Options> Resolve(const std::vector<OptionSpec>& specs,
                                         const OptionMap& given);

  const std::string& Get(absl::string_view name) const;  // a declared option
  int GetInt(absl::string_view name) const;                // a declared integer option
  bool Is(absl::string_view name, absl::string_view value) const { return Get(name) == value; }
  const OptionMap& values() const { return values_; }

 private:
  OptionMap values_;
};

}  // namespace gavel
