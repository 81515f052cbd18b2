#pragma once
// What the libFuzzer targets share: how a violated invariant aborts, the sealing key, and the
// start-up (the seed corpus on request, protobuf's log lines off).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/stubs/logging.h"
#include "service/sealing.h"

namespace gavel::fuzzing {

// Aborts (a finding) unless `condition` holds.
inline void Require(bool condition, const char* what, const absl::Status& status = absl::OkStatus()) {
  if (!condition) {
    std::fprintf(stderr, "invariant violated: %s %s\n", what, status.ToString().c_str());
    std::abort();
  }
}

// A fixed key, so that findings reproduce (those on sealed tokens up to the table id and the
// nonce, which sealing draws at random).
inline const service::Sealer& FuzzSealer() {
  static const service::Sealer sealer(
      *service::KeyRing::Parse("7 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= primary\n"));
  return sealer;
}

// LLVMFuzzerInitialize's work: with GAVEL_FUZZ_WRITE_CORPUS=DIR set, `write_corpus(DIR)` and
// exit. Protobuf's complaints about the fuzzer's bytes (strings that are not UTF-8) would be
// most of the output, a line per input: they are turned off.
inline void InitializeFuzzTarget(void (*write_corpus)(const std::string& dir)) {
  google::protobuf::SetLogHandler(nullptr);
  if (const char* dir = std::getenv("GAVEL_FUZZ_WRITE_CORPUS")) {
    write_corpus(dir);
    std::exit(0);
  }
}

}  // namespace gavel::fuzzing
