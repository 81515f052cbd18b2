#pragma once
// Reads a whole file: the servers' key and certificate files, which are re-read when they
// change.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gavel::service {

// The file's bytes; NOT_FOUND names `what` (e.g. "the key file") and the path.
inline absl::StatusOr<std::string> ReadWholeFile(const std::string& path, absl::string_view what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", what, " ", path));
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace gavel::service
