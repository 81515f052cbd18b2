#pragma once
// A message's fields written straight into a buffer with protobuf's own primitives, for
// messages on the hot path whose generic sizing and writing cost many times their bytes in
// instructions: every game's view (dozens of small messages and lists each) and the compact
// state formats. The caller writes the fields in field-number order,
// so the bytes are the ones protobuf writes (tests compare them, engine_test and each game's),
// and gives a buffer of at least the bound its writes add up to (the *Bytes functions).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace gavel {

class MessageWriter {
 public:
  // The most bytes one field takes (field numbers under 2^11: tags of two bytes at most).
  static constexpr size_t ScalarBytes() { return 2 + 10; }
  static constexpr size_t PackedBytes(size_t count) { return 2 + 5 + 10 * count; }
  static constexpr size_t NumberListBytes(size_t count) { return 2 + 5 + 1 + PackedBytes(count); }
  static constexpr size_t BytesBytes(size_t count) { return 2 + 5 + count; }
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
  void Fixed64(int field, uint64_t value) {
    if (value != 0) end_ = WireFormat::WriteFixed64ToArray(field, value, end_);
  }
  void Double(int field, double value) {  // left out when its bits are zero (not -0.0)
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if (bits != 0) end_ = WireFormat::WriteDoubleToArray(field, value, end_);
  }

  // A packed repeated int32 or uint32 field (proto3: left out when empty).
  template <typename Numbers>
  void Packed(int field, const Numbers& numbers) {
    const uint32_t list_size = ListSize(numbers);
    if (list_size != 0) WriteList(field, numbers, list_size);
  }

  // A message field whose message holds only `numbers` as its packed repeated int32 field 1
  // (Morgenland's MorgenlandUnits): written even when empty, as protobuf writes a set message.
  template <typename Numbers>
  void NumberList(int field, const Numbers& numbers) {
    const uint32_t list_size = ListSize(numbers);
    if (list_size == 0) return StartLengthDelimited(field, 0);
    StartLengthDelimited(field, 1 + google::protobuf::io::CodedOutputStream::VarintSize32(list_size) + list_size);
    WriteList(1, numbers, list_size);
  }

  // A bytes field (proto3: left out when empty).
  void Bytes(int field, std::string_view bytes) {
    if (bytes.empty()) return;
    StartLengthDelimited(field, static_cast<uint32_t>(bytes.size()));
    std::memcpy(end_, bytes.data(), bytes.size());
    end_ += bytes.size();
  }

  // A message field whose fields `write` writes in place, at most `kMaxBytes` of them: under
  // 128, so that the length is one byte, set once they are written (no copy, unlike Message).
  template <size_t kMaxBytes, typename Write>
  void ShortMessage(int field, const Write& write) {
    static_assert(kMaxBytes < 128, "the length must be one varint byte");
    end_ = WireFormat::WriteTagToArray(field, WireFormat::WIRETYPE_LENGTH_DELIMITED, end_);
    uint8_t* const length = end_++;
    write(*this);
    *length = static_cast<uint8_t>(end_ - length - 1);
  }

  // A message field holding what `inner` wrote.
  void Message(int field, const MessageWriter& inner) {
    StartLengthDelimited(field, static_cast<uint32_t>(inner.size()));
    std::memcpy(end_, inner.start_, inner.size());
    end_ += inner.size();
  }

  size_t size() const { return static_cast<size_t>(end_ - start_); }
  std::string_view bytes() const { return std::string_view(reinterpret_cast<const char*>(start_), size()); }

 private:
  using WireFormat = google::protobuf::internal::WireFormatLite;

  template <typename T>
  struct IsByteArray : std::false_type {};
  template <size_t N>
  struct IsByteArray<std::array<uint8_t, N>> : std::true_type {};

  // A number's varint: its own for a number of 0 and up, an int32's (ten bytes) for a negative
  // one. A C++ type with no negative numbers writes the same bytes for int32 and uint32 fields.
  template <typename Number>
  static bool Negative(Number number) {
    if constexpr (std::is_signed_v<Number>) return number < 0;
    return false;
  }
  template <typename Numbers>
  static uint32_t ListSize(const Numbers& numbers) {
    if constexpr (IsByteArray<Numbers>::value) {
      return BytesListSize(numbers.data(), numbers.size());  // a long array of counts or flags
    } else {
      uint32_t size = 0;
      for (auto number : numbers)
        size += Negative(number) ? 10 : google::protobuf::io::CodedOutputStream::VarintSize32(static_cast<uint32_t>(number));
      return size;
    }
  }
  // Bytes as varints: one byte each, two from 128. Eight at a time while none is that high.
  static uint32_t BytesListSize(const uint8_t* bytes, size_t count) {
    size_t at = 0;
    for (uint64_t word; at + sizeof(word) <= count; at += sizeof(word)) {
      std::memcpy(&word, bytes + at, sizeof(word));
      if (word & 0x8080808080808080) break;
    }
    uint32_t size = static_cast<uint32_t>(count);
    for (; at < count; ++at) size += bytes[at] >> 7;
    return size;
  }
  template <typename Numbers>
  void WriteList(int field, const Numbers& numbers, uint32_t list_size) {
    using google::protobuf::io::CodedOutputStream;
    StartLengthDelimited(field, list_size);
    if (list_size == numbers.size()) {  // every number is its own one-byte varint
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*numbers.data())>, uint8_t>) {
        std::memcpy(end_, numbers.data(), list_size);  // bytes under 128: the list is the bytes
        end_ += list_size;
      } else {
        for (auto number : numbers) *end_++ = static_cast<uint8_t>(number);
      }
      return;
    }
    for (auto number : numbers)
      end_ = Negative(number) ? CodedOutputStream::WriteVarint32SignExtendedToArray(static_cast<int32_t>(number), end_)
                              : CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(number), end_);
  }
  void StartLengthDelimited(int field, uint32_t size) {
    end_ = WireFormat::WriteTagToArray(field, WireFormat::WIRETYPE_LENGTH_DELIMITED, end_);
    end_ = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(size, end_);
  }

  uint8_t* start_;
  uint8_t* end_;
};

}  // namespace gavel
