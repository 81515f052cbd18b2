#pragma once
// Helpers for the per-game messages carried in google.protobuf.Any.
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"

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

}  // namespace gavel
