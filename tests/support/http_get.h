#pragma once
// A minimal HTTP/1.0 GET over loopback for tests (e.g. a /metrics endpoint).
#include <string>

#include "absl/status/statusor.h"

namespace gavel::testing {

// Returns the response body of GET http://127.0.0.1:port/path.
absl::StatusOr<std::string> HttpGet(int port, const std::string& path);

}  // namespace gavel::testing
