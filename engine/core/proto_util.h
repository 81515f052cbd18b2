#pragma once
// Helpers for the per-game messages carried in google.protobuf.Any.
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/arena.h"

namespace gavel {

// Unpacks `any` into `out`, or says what the caller sent instead.
template <typename Message>
absl::Status UnpackAny(const google::protobuf::Any& any, Message* out, absl::string_view what) {
  if (!any.Is<Message>()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a ",
                                                   Message::descriptor()->full_name(),
                                                   ", got '", any.type_url(), "'"));
  }
  if (!any.UnpackTo(out)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a well-formed ",
                                                   Message::descriptor()->full_name()));
  }
  return absl::OkStatus();
}

// A per-call scratch message on a stack-backed arena: decoding or encoding a game's
// message without a heap allocation per repeated field (the service's hot path).
template <typename Message, size_t kBlockBytes = 4096>
class Scratch {
 public:
  Scratch() : arena_(FirstBlock(block_)), message_(google::protobuf::Arena::CreateMessage<Message>(&arena_)) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  Message* operator->() { return message_; }
  Message& operator*() { return *message_; }
  Message* get() { return message_; }

 private:
  static google::protobuf::ArenaOptions FirstBlock(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kBlockBytes;
    return options;
  }
  alignas(16) char block_[kBlockBytes];
  google::protobuf::Arena arena_;
  Message* message_;
};

}  // namespace gavel
