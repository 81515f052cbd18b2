#pragma once
// What the libFuzzer targets share: how a violated invariant aborts, the sealing key, and the
// start-up (the seed corpus on request, protobuf's log lines off).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
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

// The seed corpus a target writes: numbered files, each its input's header bytes (which
// game, which mode) and a payload; says how many it wrote when done.
class CorpusWriter {
 public:
  explicit CorpusWriter(std::string dir) : dir_(std::move(dir)) { std::filesystem::create_directories(dir_); }
  ~CorpusWriter() { std::printf("wrote %d corpus files to %s\n", written_, dir_.c_str()); }
  CorpusWriter(const CorpusWriter&) = delete;
  CorpusWriter& operator=(const CorpusWriter&) = delete;

  void Write(absl::string_view name, std::initializer_list<uint8_t> header, absl::string_view payload = {}) {
    std::ofstream out(dir_ + "/" + std::string(name) + "_" + std::to_string(written_++));
    for (uint8_t byte : header) out.put(static_cast<char>(byte));
    out << payload;
  }

 private:
  std::string dir_;
  int written_ = 0;
};

// LLVMFuzzerInitialize's work: with GAVEL_FUZZ_WRITE_CORPUS=DIR set, `write_corpus` writes the
// seed corpus into DIR and the program exits. Protobuf's complaints about the fuzzer's bytes
// (strings that are not UTF-8) would be most of the output, a line per input: they are
// turned off.
inline void InitializeFuzzTarget(void (*write_corpus)(CorpusWriter& corpus)) {
  google::protobuf::SetLogHandler(nullptr);
  if (const char* dir = std::getenv("GAVEL_FUZZ_WRITE_CORPUS")) {
    {
      CorpusWriter corpus(dir);
      write_corpus(corpus);
    }
    std::exit(0);
  }
}

}  // namespace gavel::fuzzing
