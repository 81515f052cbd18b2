#pragma once
// Helpers for the per-game messages carried in google.protobuf.Any.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/core/types.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace gavel {

// The type URL google.protobuf.Any gives `Message`, built once.
template <typename Message>
const std::string& TypeUrl() {
  static const std::string* const type_url =
      new std::string(absl::StrCat("type.googleapis.com/", Message::descriptor()->full_name()));
  return *type_url;
}

// Any::PackFrom without building the type URL on every call (the hot path packs the state,
// each view and every legal move's detail): the same bytes.
template <typename Message>
void PackAny(const Message& message, google::protobuf::Any* out) {
  out->set_type_url(TypeUrl<Message>());
  message.SerializeToString(out->mutable_value());
}

// Every game's move message is a function of the move id alone, so its packed bytes are
// built once per id and copied afterwards: the service describes every legal move of every
// turn it answers (Carat offers 38 a turn), and building the messages was 14% of Carat's
// combined call.
// `Build` takes no state, which is what makes the cache right; ids from `cached_ids` on
// (Morgenland's spells, out-of-range ids) are built on every call.
template <typename Message>
class PackedMoveDetails {
 public:
  using Build = void (*)(Move move, Message* out);
  PackedMoveDetails(uint32_t cached_ids, Build build) : build_(build), values_(cached_ids) {
    for (uint32_t id = 0; id < cached_ids; ++id) {
      Message message;
      build(Move{id}, &message);
      message.SerializeToString(&values_[id]);
    }
  }
  void Pack(Move move, google::protobuf::Any* out) const {
    if (move.id < values_.size()) {
      out->set_type_url(TypeUrl<Message>());
      out->set_value(values_[move.id]);
      return;
    }
    Message message;
    build_(move, &message);
    PackAny(message, out);
  }

 private:
  Build build_;
  std::vector<std::string> values_;
};

// An array of counts as the bytes of a `bytes` field (the compact state formats). Through
// a view, not std::string::append(begin, end), which copies a range of another element type
// into a temporary string first.
template <size_t N>
std::string_view AsBytes(const std::array<uint8_t, N>& counts, size_t count = N) {
  return std::string_view(reinterpret_cast<const char*>(counts.data()), count);
}

// Up to `kMax` numbers under 256, gathered without an allocation for a packed or a bytes
// field (the states written by MessageWriter).
template <size_t kMax>
class SmallNumbers {
 public:
  // The positions of the set bits of `bits`, ascending, each plus `first`.
  template <typename Bits>
  static SmallNumbers SetBits(Bits bits, int first = 0) {
    SmallNumbers out;
    size_t count = 0;  // local, where the member would be reloaded after every byte stored
    for (; bits != 0; bits &= bits - 1)
      out.numbers_[count++] = static_cast<uint8_t>(first + std::countr_zero(bits));
    out.count_ = count;
    return out;
  }
  void Add(int number) { numbers_[count_++] = static_cast<uint8_t>(number); }
  // Many at once: one copy, where a loop of Add would store the count after every byte.
  void Add(std::span<const uint8_t> numbers) {
    std::memcpy(numbers_.data() + count_, numbers.data(), numbers.size());
    count_ += numbers.size();
  }
  std::span<const uint8_t> numbers() const { return {numbers_.data(), count_}; }
  std::string_view bytes() const { return AsBytes(numbers_, count_); }

 private:
  std::array<uint8_t, kMax> numbers_;
  size_t count_ = 0;
};

// Appends one length-delimited field `field` (a message, or an entry of a repeated one): its
// tag, length and `size` bytes from `write`, which is given where they go.
template <typename Write>
void AppendLengthDelimited(int field, size_t size, const Write& write, std::string* out) {
  using google::protobuf::internal::WireFormatLite;
  const size_t at = out->size();
  out->resize(at + WireFormatLite::TagSize(field, WireFormatLite::TYPE_MESSAGE) +
              WireFormatLite::LengthDelimitedSize(size));
  uint8_t* end = reinterpret_cast<uint8_t*>(out->data()) + at;
  end = WireFormatLite::WriteTagToArray(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, end);
  end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), end);
  write(end);
}

// The same for bytes at hand, appended: growing the string by resize first zero-fills it,
// which cost more than the copy for the short fields written many times a call (a move).
inline void AppendBytesField(int field, absl::string_view bytes, std::string* out) {
  using google::protobuf::internal::WireFormatLite;
  std::array<uint8_t, 10> prefix;  // a tag (fields under 2^29) and a length, five bytes each at most
  uint8_t* end = WireFormatLite::WriteTagToArray(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, prefix.data());
  end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(bytes.size()), end);
  out->append(reinterpret_cast<const char*>(prefix.data()), static_cast<size_t>(end - prefix.data()));
  out->append(bytes.data(), bytes.size());
}

// Empties a buffer reused from call to call. Keeps its capacity up to 64 KiB: a call then
// allocates nothing for it, and one large response or move does not pin memory.
inline void ClearReusedBuffer(std::string* buffer) {
  constexpr size_t kKeptCapacity = 64 << 10;
  if (buffer->capacity() > kKeptCapacity) std::string().swap(*buffer);
  buffer->clear();
}

// Whether `any` holds a Message that parses into `out`: Any::UnpackTo without its type check
// through the descriptor, which costs more than the check by name (Dirk unpacks every legal
// move of every turn of a play-out).
template <typename Message>
bool TryUnpack(const google::protobuf::Any& any, Message* out) {
  return any.Is<Message>() && out->ParseFromString(any.value());
}

// Unpacks `any` into `out`, or says what the caller sent instead.
template <typename Message>
absl::Status UnpackAny(const google::protobuf::Any& any, Message* out, absl::string_view what) {
  if (!any.Is<Message>()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a ",
                                                   Message::descriptor()->full_name(),
                                                   ", got '", any.type_url(), "'"));
  }
  if (!out->ParseFromString(any.value())) {  // the type checked by name, as in TryUnpack
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a well-formed ",
                                                   Message::descriptor()->full_name()));
  }
  return absl::OkStatus();
}

// A scratch message taken from a small per-thread pool and cleared when given back: a
// cleared message keeps its repeated fields' elements and capacity, and its singular
// sub-messages (the game protos declare them `optional`, which makes Clear() keep them), so
// the next state parses and encodes without allocating them (docs/performance.md). A message
// that held a large input is dropped instead of kept, so no request makes a thread hold more
// than a few messages of kKeepBytes each.
template <typename Message>
class PooledScratch {
 public:
  PooledScratch() : message_(Pool().Take()) {}
  ~PooledScratch() { Pool().Give(std::move(message_), keep_); }
  PooledScratch(const PooledScratch&) = delete;
  PooledScratch& operator=(const PooledScratch&) = delete;
  Message* operator->() { return message_.get(); }
  Message& operator*() { return *message_; }
  Message* get() { return message_.get(); }

  // UnpackAny into this message.
  absl::Status Unpack(const google::protobuf::Any& any, absl::string_view what) {
    keep_ = any.value().size() <= kKeepBytes;
    return UnpackAny(any, message_.get(), what);
  }

 private:
  static constexpr size_t kKeepBytes = 16 << 10;  // the largest state is under 2 KiB
  static constexpr size_t kPoolSize = 2;          // scratch messages of one type alive at once

  struct FreeList {
    std::vector<std::unique_ptr<Message>> free;
    std::unique_ptr<Message> Take() {
      if (free.empty()) return std::make_unique<Message>();
      std::unique_ptr<Message> message = std::move(free.back());
      free.pop_back();
      return message;
    }
    void Give(std::unique_ptr<Message> message, bool keep) {
      if (!keep || free.size() >= kPoolSize) return;
      message->Clear();
      free.push_back(std::move(message));
    }
  };
  static FreeList& Pool() {
    thread_local FreeList pool;
    return pool;
  }

  std::unique_ptr<Message> message_;
  bool keep_ = true;
};

}  // namespace gavel
