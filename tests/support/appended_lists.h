#pragma once
// Views that append packed lists as bytes (AppendSmallNumbers, engine/core/proto_util.h).
#include "gavel/v1/engine.pb.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"

namespace gavel::testing {

// The view's bytes end with exactly what protobuf writes for `lists`, a message of the view's
// type holding only the appended lists, in the order they are appended.
inline void ExpectViewEndsWith(const v1::View& view, const google::protobuf::Message& lists) {
  const std::string expected = lists.SerializeAsString();
  ASSERT_FALSE(expected.empty());
  EXPECT_TRUE(view.view().value().ends_with(expected)) << "the view's last bytes are not protobuf's own";
}

}  // namespace gavel::testing
