#pragma once
// Internal to engine/mercado/: what the game object, the wire codec, the validation and the
// view filter share. Not part of the API (engine/mercado/mercado.h is).
#include <bit>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"
#include "engine/core/status.h"
#include "engine/mercado/mercado.h"
#include "gavel/v1/mercado.pb.h"

namespace gavel::mercado {

// INVALID_ARGUMENT with the game's prefix: every decoding and validation error.
absl::Status Invalid(const auto&... parts) { return InvalidInput("mercado", parts...); }

inline constexpr uint32_t kAllItems = (uint32_t{1} << kItems) - 1;

inline constexpr uint32_t kAllPerfumes = (uint32_t{1} << kPerfumes) - 1;

absl::Status CoinsFromProto(const v1::MercadoCoins& in, const PartName& what, CoinCounts* out);

template <typename Bits>
void BitsToList(Bits bits, int first_id, google::protobuf::RepeatedField<uint32_t>* out) {
  for (int i = 0; i < 32; ++i)
    if (bits >> i & 1) out->Add(first_id + i);
}

// Reads a list of tile ids of one deck into a bit set (bit = id - first_id).
absl::Status ListToBits(const google::protobuf::RepeatedField<uint32_t>& in, int first_id,
                        int count, const PartName& what, uint32_t* out);

absl::Status PrivilegesFromList(const google::protobuf::RepeatedField<uint32_t>& in,
                                const PartName& what, PrivilegeCounts* out);

void PrivilegesToList(const PrivilegeCounts& counts, google::protobuf::RepeatedField<uint32_t>* out);

// The public table; full states of format 2 leave its coins out (`with_coins` false) and
// carry them as bytes.
void TableToProto(const Data& data, v1::MercadoTable* out, bool with_coins = true);
// The view's table, coins included, written by MessageWriter: at most kTableBytes.
void WriteViewTable(const Data& data, MessageWriter& out);
inline constexpr size_t kCoinsBytes = kCoinKinds * MessageWriter::ScalarBytes();
inline constexpr size_t kSeatBytes =
    4 * MessageWriter::ScalarBytes() + (2 + kPositions) * MessageWriter::MessageBytes(kCoinsBytes);
inline constexpr size_t kTableBytes =
    17 * MessageWriter::ScalarBytes() + MessageWriter::PackedBytes(kPositions) + MessageWriter::PackedBytes(kItems) +
    MessageWriter::PackedBytes(kPerfumes) + MessageWriter::PackedBytes(kPrivileges) +
    2 * MessageWriter::MessageBytes(kCoinsBytes) + kMaxPlayers * MessageWriter::MessageBytes(kSeatBytes);

// The turn: players, board, phase, whose turn and what it is in the middle of.
absl::Status DecodeTurn(const v1::MercadoTable& in, Data* data);

// The display and the discards; the decks follow from them.
absl::Status DecodeDisplay(const v1::MercadoTable& in, Data* data);

// The seal supply and the privileges played.
absl::Status DecodeSupplies(const v1::MercadoTable& in, Data* data);

// One seat's seals, progress and privilege count (its coins: DecodeTable).
absl::Status DecodeSeat(const v1::MercadoSeat& shown, int seat, SeatData& holder,
                        int* privilege_count);

// Decodes the public table (ranges only; Validate checks consistency). The decks follow
// from the display and the discards; `privilege_counts` receives each seat's count. The coins
// come from the table's messages, or from `coin_bytes` (a format 2 state's `coins`) when given.
absl::Status DecodeTable(const v1::MercadoTable& in, Data* data,
                         std::array<int, kMaxPlayers>* privilege_counts, absl::string_view coin_bytes = {});

// The privilege supply: every privilege not held by a seat and not gone.
absl::Status FillPrivilegeSupply(Data* data);

bool OptionalSymbolWaits(const Data& data);

absl::Status FeaturizeMercado(const v1::View& view, std::span<const Move> moves, Features* out);

class MercadoGameImpl final : public Game {
 public:
  MercadoGameImpl() {
    info_.name = "mercado";
    info_.state_type_url = TypeUrl<v1::MercadoState>();
    info_.display_name = "Mercado";
    info_.min_players = 2;
    info_.max_players = kMaxPlayers;
    info_.options.push_back(OptionSpec{"board_side",
                                       "Board side: A (introductory) or B (adds opp+F and opp+J)",
                                       {"A", "B"}, 0, 0, "A"});
    info_.options.push_back(OptionSpec{"start_space",
                                       "The space (0..29, clockwise from the top right) under "
                                       "the start tile",
                                       {}, 0, kSpaces - 1, "0"});
  }
  const GameInfo& info() const override { return info_; }

  absl::StatusOr<std::unique_ptr<State>> Resample(const v1::View& view,
                                                  uint64_t seed) const override;
  absl::Status Featurize(const v1::View& view, std::span<const Move> moves,
                         Features* out) const override {
    return FeaturizeMercado(view, moves, out);
  }

 protected:
  absl::StatusOr<std::unique_ptr<State>> Create(int players, uint64_t seed, const Options& options,
                                                EventSink* events) const override;
  absl::StatusOr<std::unique_ptr<State>> DecodeState(const google::protobuf::Any& any) const override;
  absl::StatusOr<Move> DecodeMove(const google::protobuf::Any& detail) const override;

 private:
  GameInfo info_;
};

}  // namespace gavel::mercado
