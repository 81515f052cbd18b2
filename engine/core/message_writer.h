#pragma once
// A message's fields written straight into a buffer with protobuf's own primitives, for
// messages on the hot path whose generic sizing and writing cost many times their bytes in
// instructions (Morgenland's seat views: up to eight token messages and five lists of numbers
// each, written for every view). The caller writes the fields in field-number order, so the
// bytes are the ones protobuf writes (the games' tests compare them), and gives a buffer of at
// least the bound its writes add up to (the *Bytes functions).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace gavel {

class MessageWriter {
 public:
  // The most bytes one field takes (field numbers under 2^11: tags of two bytes at most).
  static constexpr size_t ScalarBytes() { return 2 + 10; }
  static constexpr size_t NumberListBytes(size_t count) { return 2 + 5 + 1 + 5 + 10 * count; }
  static constexpr size_t MessageBytes(size_t inner) { return 2 + 5 + inner; }

  explicit MessageWriter(uint8_t* buffer) : start_(buffer), end_(buffer) {}

  // proto3 scalars: a zero is left out, as protobuf leaves it out.
  void Int32(int field, int32_t value) {
    if (value != 0) end_ = WireFormat::WriteInt32ToArray(field, value, end_);
  }
  void UInt32(int field, uint32_t value) {
    if (value != 0) end_ = WireFormat::WriteUInt32ToArray(field, value, end_);
  }
  void Bool(int field, bool value) {
    if (value) end_ = WireFormat::WriteBoolToArray(field, value, end_);
  }

  // A message field whose message holds only `numbers` as its packed repeated int32 field 1
  // (Morgenland's MorgenlandUnits). Negative numbers take ten bytes, as in protobuf.
  template <typename Numbers>
  void NumberList(int field, const Numbers& numbers) {
    using google::protobuf::io::CodedOutputStream;
    const uint32_t list_size = ListSize(numbers);
    const uint32_t message_size = list_size == 0 ? 0 : 1 + CodedOutputStream::VarintSize32(list_size) + list_size;
    StartMessage(field, message_size);
    if (list_size == 0) return;
    StartMessage(1, list_size);
    if (list_size == numbers.size()) {  // every number is its own one-byte varint
      for (int32_t number : numbers) *end_++ = static_cast<uint8_t>(number);
      return;
    }
    for (int32_t number : numbers) end_ = CodedOutputStream::WriteVarint32SignExtendedToArray(number, end_);
  }

  // A message field holding what `inner` wrote.
  void Message(int field, const MessageWriter& inner) {
    StartMessage(field, static_cast<uint32_t>(inner.size()));
    std::memcpy(end_, inner.start_, inner.size());
    end_ += inner.size();
  }

  size_t size() const { return static_cast<size_t>(end_ - start_); }
  std::string_view bytes() const { return std::string_view(reinterpret_cast<const char*>(start_), size()); }

 private:
  using WireFormat = google::protobuf::internal::WireFormatLite;

  template <typename Numbers>
  static uint32_t ListSize(const Numbers& numbers) {
    uint32_t size = 0;
    for (int32_t number : numbers) size += static_cast<uint32_t>(WireFormat::Int32Size(number));
    return size;
  }
  void StartMessage(int field, uint32_t size) {
    end_ = WireFormat::WriteTagToArray(field, WireFormat::WIRETYPE_LENGTH_DELIMITED, end_);
    end_ = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(size, end_);
  }

  uint8_t* start_;
  uint8_t* end_;
};

}  // namespace gavel
