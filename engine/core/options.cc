#include "engine/core/options.h"
#include "engine/core/status.h"

#include <charconv>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gavel {
namespace {

absl::Status CheckValue(const OptionSpec& spec, absl::string_view value) {
  if (!spec.choices.empty()) {
    for (const auto& choice : spec.choices)
      if (choice == value) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("option ", spec.name, "=", value,
                                                   " is not one of: ",
                                                   absl::StrJoin(spec.choices, ", ")));
  }
  int parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < spec.min_int ||
      parsed > spec.max_int) {
    return absl::InvalidArgumentError(absl::StrCat("option ", spec.name, "=", value,
                                                   " must be an integer from ", spec.min_int,
                                                   " to ", spec.max_int));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Options> Options::Resolve(const std::vector<OptionSpec>& specs,
                                         const OptionMap& given) {
  Options options;
  for (const auto& [name, value] : given) {
    const OptionSpec* spec = nullptr;
    for (const auto& candidate : specs)
      if (candidate.name == name) spec = &candidate;
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const auto& candidate : specs) known.push_back(candidate.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", name, "'; this game has: ",
          known.empty() ? "no options" : absl::StrJoin(known, ", ")));
    }
    GAVEL_RETURN_IF_ERROR(CheckValue(*spec, value));
    options.values_[name] = value;
  }
  for (const auto& spec : specs) options.values_.try_emplace(spec.name, spec.default_value);
  return options;
}

const std::string& Options::Get(absl::string_view name) const {
  static const std::string kEmpty;
  const auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

int Options::GetInt(absl::string_view name) const {
  const std::string& text = Get(name);
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace gavel
