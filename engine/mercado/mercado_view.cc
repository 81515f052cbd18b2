// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/mercado/mercado_wire.h"

#include "engine/core/proto_util.h"

namespace gavel::mercado {

// Written field by field in field-number order with MessageWriter: protobuf's own bytes
// (MercadoViews.ViewsAreProtobufsOwnBytes) without building the table's messages.
void MercadoState::PackView(Seat viewer, google::protobuf::Any* out) const {
  using View = v1::MercadoView;
  using W = MessageWriter;
  constexpr size_t kPrivilegeBytes = 3 * W::ScalarBytes();
  std::array<uint8_t, kTableBytes> table_buffer;
  W table(table_buffer.data());
  WriteViewTable(data_, table);
  std::array<uint8_t, W::MessageBytes(kTableBytes) + 2 * W::ScalarBytes() +
                          kPrivileges * W::MessageBytes(kPrivilegeBytes)> buffer;
  W fields(buffer.data());
  fields.Message(View::kTableFieldNumber, table);
  fields.Int32(View::kSeatFieldNumber, viewer);
  fields.Int32(View::kToMoveFieldNumber, to_move());
  if (viewer >= 0 && viewer < data_.players) {
    const PrivilegeCounts& own = data_.seats[viewer].privileges;
    for (int type = 0; type < kPrivilegeTypes; ++type) {
      for (int i = 0; i < own[type]; ++i) {
        fields.ShortMessage<kPrivilegeBytes>(View::kOwnPrivilegesFieldNumber, [type](W& shown) {
          shown.UInt32(v1::MercadoPrivilege::kTypeFieldNumber, static_cast<uint32_t>(type));
          shown.UInt32(v1::MercadoPrivilege::kValueFieldNumber, static_cast<uint32_t>(Privilege(type).value));
          shown.Int32(v1::MercadoPrivilege::kExtraFieldNumber, static_cast<int32_t>(Privilege(type).extra));
        });
      }
    }
  }
  out->set_type_url(TypeUrl<View>());
  out->mutable_value()->assign(fields.bytes());
}

absl::StatusOr<std::unique_ptr<State>> MercadoGameImpl::Resample(const v1::View& view_proto,
                                                                 uint64_t seed) const {
  v1::MercadoView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the mercado view"));
  Data data;
  std::array<int, kMaxPlayers> counts{};
  GAVEL_RETURN_IF_ERROR(DecodeTable(view.table(), &data, &counts));
  const Seat viewer = view.seat();
  if (viewer < 0 || viewer >= data.players) return Invalid("the viewer ", viewer, " is not a seat");
  PrivilegeCounts& own = data.seats[viewer].privileges;
  if (view.own_privileges_size() > kPrivileges) return Invalid("too many own privileges");
  for (const v1::MercadoPrivilege& privilege : view.own_privileges()) {
    if (privilege.type() >= kPrivilegeTypes)
      return Invalid("the viewer's privilege type ", privilege.type(), " does not exist");
    ++own[privilege.type()];
  }
  if (PrivilegeCount(own) != counts[viewer])
    return Invalid("the viewer's privileges do not match its privilege count");
  // Unseen privileges: neither the viewer's nor gone. Deal the other seats' counts from them.
  PrivilegeCounts unseen{};
  int unseen_total = 0;
  for (int type = 0; type < kPrivilegeTypes; ++type) {
    const int left = Privilege(type).count - own[type] - data.privileges_gone[type];
    if (left < 0) return Invalid("the view shows too many privileges of type ", type);
    unseen[type] = static_cast<uint8_t>(left);
    unseen_total += left;
  }
  Rng rng(Rng::FromSeed(seed));
  for (int seat = 0; seat < data.players; ++seat) {
    if (seat == viewer) continue;
    for (int i = 0; i < counts[seat]; ++i) {
      if (unseen_total == 0) return Invalid("the seats hold more privileges than exist");
      const int type = rng.PickWeighted(unseen.data(), kPrivilegeTypes, unseen_total);
      --unseen[type];
      --unseen_total;
      ++data.seats[seat].privileges[type];
    }
  }
  data.privilege_supply = unseen;
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MercadoState>(data));
}

}  // namespace gavel::mercado
