// The view filter (what a seat, or a spectator, may know) and resampling from a view.
#include "engine/morgenland/morgenland_wire.h"

#include "engine/core/message_writer.h"
#include "engine/core/proto_util.h"

namespace gavel::morgenland {

namespace {

// std::sort of a few elements of a short array. GCC 12 warns (-Warray-bounds) that the
// insertion sort's step for more than 16 elements would read past such an array; with 8 or
// fewer it never runs.
template <typename Iterator, typename Less = std::less<>>
void SortShort(Iterator first, Iterator last, Less less = {}) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
  std::sort(first, last, less);
#pragma GCC diagnostic pop
}

// The spells of `holder` every other seat knows: what a spectator may see of them.
uint32_t KnownToAll(const SeatData& holder, int holder_seat, int players) {
  uint32_t known = holder.spells;
  for (int seat = 0; seat < players; ++seat)
    if (seat != holder_seat) known &= holder.known_by[seat];
  return known;
}

constexpr size_t kTokenBytes = 6 * MessageWriter::ScalarBytes();

// One token as an entry of a seat view's `tokens`; `show`: its index and value.
void WriteToken(const SeatData& s, int seat, int token, bool show, MessageWriter& out) {
  using Token = v1::MorgenlandToken;
  out.ShortMessage<kTokenBytes>(v1::MorgenlandSeatView::kTokensFieldNumber, [&](MessageWriter& fields) {
    fields.Int32(Token::kSeatFieldNumber, seat);
    fields.UInt32(Token::kIndexFieldNumber, show ? token : 0);
    fields.UInt32(Token::kValueFieldNumber, show ? TokenValue(token) : 0);
    fields.Int32(Token::kSpaceFieldNumber, s.token_space[token]);
    fields.Bool(Token::kFaceUpFieldNumber, s.face_up >> token & 1);
    fields.UInt32(Token::kCopiesFieldNumber, s.copies[token]);
  });
}

// A seat's tokens as a viewer sees them: its own all, in token order; another seat's face-up
// ones, and its hidden ones on the board by space only. Another seat's list runs by (shown
// value, space), the hidden ones (value 0) first, so that its order tells nothing more. The
// values rise with the token index, so the face-up ones come in token order.
void WriteTokens(const SeatData& s, int seat, bool own, MessageWriter& out) {
  static_assert(std::adjacent_find(kTokenValues.begin(), kTokenValues.end(), std::greater_equal<>()) ==
                kTokenValues.end());
  if (own) {
    for (int token = 0; token < kTokens; ++token) WriteToken(s, seat, token, true, out);
    return;
  }
  std::array<int, kTokens> hidden;
  int hidden_count = 0;
  for (int token = 0; token < kTokens; ++token)
    if (!(s.face_up >> token & 1) && s.token_space[token] != kInHand) hidden[hidden_count++] = token;
  SortShort(hidden.begin(), hidden.begin() + hidden_count, [&s](int a, int b) {
    return std::pair(s.token_space[a], a) < std::pair(s.token_space[b], b);
  });
  for (int i = 0; i < hidden_count; ++i) WriteToken(s, seat, hidden[i], false, out);
  for (int token = 0; token < kTokens; ++token)
    if (s.face_up >> token & 1) WriteToken(s, seat, token, true, out);
}

constexpr size_t kSeatViewBytes =
    kTokens * MessageWriter::MessageBytes(kTokenBytes) + 2 * MessageWriter::NumberListBytes(kKinds) +
    2 * MessageWriter::NumberListBytes(kArtifactTypes) + MessageWriter::NumberListBytes(kSpaces) +
    10 * MessageWriter::ScalarBytes();

// `seat` as `viewer` sees it, as an entry of the view's `seats`.
void WriteSeatView(const Data& data, int seat, Seat viewer, MessageWriter& out) {
  using SeatView = v1::MorgenlandSeatView;
  const SeatData& s = data.seats[seat];
  const bool own = seat == viewer;
  // Another seat's treasure without its hidden starting picks (after setup).
  const bool hide_start = !own && data.phase != Phase::kPick;
  std::array<int32_t, kKinds> treasure;
  for (int kind = 0; kind < kKinds; ++kind) treasure[kind] = s.treasure[kind] - (hide_start ? s.start[kind] : 0);
  std::array<uint8_t, kSeatViewBytes> buffer;
  MessageWriter fields(buffer.data());
  WriteTokens(s, seat, own, fields);
  fields.NumberList(SeatView::kTreasureFieldNumber, treasure);
  fields.UInt32(SeatView::kTreasureTotalFieldNumber, Total(s.treasure));
  fields.UInt32(SeatView::kPicksFieldNumber, Total(s.start));
  fields.NumberList(SeatView::kOwnedFieldNumber, s.owned);
  fields.NumberList(SeatView::kInvokedFieldNumber, s.invoked);
  fields.NumberList(SeatView::kCarpetsFieldNumber, s.carpets);
  fields.UInt32(SeatView::kParasiteUsesFieldNumber, s.parasite_uses);
  fields.UInt32(SeatView::kScrollSpacesFieldNumber, s.scroll_spaces);
  fields.UInt32(SeatView::kSmugglerSpacesFieldNumber, s.smuggler_spaces);
  fields.UInt32(SeatView::kSpellCountFieldNumber, std::popcount(s.spells));
  fields.UInt32(SeatView::kSpellsFieldNumber,
                own ? s.spells : viewer == kNoSeat ? KnownToAll(s, seat, data.players) : s.known_by[viewer]);
  fields.Bool(SeatView::kEnteredFieldNumber, s.entered);
  fields.Bool(SeatView::kDjinnFieldNumber, s.djinn);
  fields.UInt32(SeatView::kArtifactsFieldNumber, std::accumulate(s.owned.begin(), s.owned.end(), 0));
  if (own) fields.NumberList(SeatView::kStartFieldNumber, s.start);
  out.Message(v1::MorgenlandView::kSeatsFieldNumber, fields);
}

// The unit lists and the seats, written after the rest of the view (MessageWriter), in field
// order: the caves' shelves, the bank, the seats and (professional game) the box.
void AppendUnitsAndSeats(const Data& data, Seat viewer, std::string* out) {
  using View = v1::MorgenlandView;
  static_assert(kMaxShelves <= kKinds);
  std::array<uint8_t, (kKinds + 1) * MessageWriter::NumberListBytes(kKinds) +
                          kMaxPlayers * MessageWriter::MessageBytes(kSeatViewBytes) +
                          MessageWriter::NumberListBytes(kArtifactTypes)> buffer;
  MessageWriter fields(buffer.data());
  for (const auto& shelves : data.shelves) fields.NumberList(View::kShelvesFieldNumber, shelves);
  fields.NumberList(View::kBankFieldNumber, data.bank);
  for (int seat = 0; seat < data.players; ++seat) WriteSeatView(data, seat, viewer, fields);
  if (data.pro) fields.NumberList(View::kBoxFieldNumber, data.box);
  out->append(fields.bytes());
}

}  // namespace

constexpr size_t kRoomViewBytes = 5 * MessageWriter::ScalarBytes() + MessageWriter::PackedBytes(kMaxStack);

// Written by MessageWriter in two parts: the fields but the unit lists and seats in
// field-number order, then those (AppendUnitsAndSeats). Readers take fields in any order, and
// the bytes stay a function of the state and the viewer.
void MorgenlandState::PackView(Seat viewer, google::protobuf::Any* out) const {
  using View = v1::MorgenlandView;
  using W = MessageWriter;
  std::array<uint8_t, kPublicBytes + 2 * W::ScalarBytes() + kMaxPlayers * W::MessageBytes(kRoomViewBytes)> buffer;
  W fields(buffer.data());
  WritePublicHead<View>(data_, fields, [viewer](W& after_players) { after_players.Int32(View::kSeatFieldNumber, viewer); });
  for (int room = 0; room < data_.players; ++room) {
    fields.ShortMessage<kRoomViewBytes>(View::kRoomsFieldNumber, [&](W& shown) {
      using Room = v1::MorgenlandRoomView;
      shown.UInt32(Room::kStackSizeFieldNumber, data_.stack_size[room]);
      shown.Int32(Room::kFaceUpFieldNumber, data_.face_up[room]);
      const bool known = viewer != kNoSeat && (data_.set_known[room] >> viewer & 1);
      const bool ordered = known && (data_.order_known[room] >> viewer & 1);
      if (known) {
        std::array<int8_t, kMaxStack> stack = data_.stack[room];
        const auto stack_end = stack.begin() + data_.stack_size[room];
        if (!ordered) SortShort(stack.begin(), stack_end);
        shown.Packed(Room::kKnownFieldNumber, std::span<const int8_t>(stack.begin(), stack_end));
      }
      shown.Bool(Room::kOrderKnownFieldNumber, ordered);
      shown.UInt32(Room::kSetKnownByFieldNumber, data_.set_known[room]);
      shown.UInt32(Room::kOrderKnownByFieldNumber, data_.order_known[room]);
    });
  }
  // Only the strongest sees the drawn cards before its choice.
  std::array<int8_t, 2> tent = data_.tent;
  for (int8_t& spell : tent)
    if (spell >= 0 && viewer != data_.active) spell = kSpells;
  WritePublicMiddle<View>(data_, fields, {View::kSpellDeckCountFieldNumber, std::popcount(data_.spell_deck)}, tent);
  fields.Int32(View::kToMoveFieldNumber, to_move());
  WritePublicTargets<View>(data_, fields);
  out->set_type_url(TypeUrl<View>());
  std::string* value = out->mutable_value();
  value->assign(fields.bytes());
  AppendUnitsAndSeats(data_, viewer, value);
}

// ---------------------------------------------------------------------------
// Game

namespace {

// Starting picks of the other seats consistent with the public holdings: each seat picked 3,
// the picks of kind k sum to `column[k]`, and a seat's holding never goes negative.
// `budget` bounds the search, so that a contradictory view cannot make it run long.
bool DealStarts(const std::vector<int>& seats, int index, std::array<int, kKinds>& column,
                const std::array<std::array<int, kKinds>, kMaxPlayers>& low, Rng& rng,
                std::array<std::array<uint8_t, kKinds>, kMaxPlayers>& out, int& budget) {
  if (--budget < 0) return false;
  if (index == static_cast<int>(seats.size())) {
    for (int c : column)
      if (c != 0) return false;
    return true;
  }
  const int seat = seats[index];
  // Every composition of 3 into 5 kinds (35), tried from a random start.
  std::array<std::array<uint8_t, kKinds>, 35> options{};
  int count = 0;
  for (int a = 0; a <= 3; ++a)
    for (int b = 0; a + b <= 3; ++b)
      for (int c = 0; a + b + c <= 3; ++c)
        for (int d = 0; a + b + c + d <= 3; ++d)
          options[count++] = {static_cast<uint8_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(c),
                              static_cast<uint8_t>(d), static_cast<uint8_t>(3 - a - b - c - d)};
  rng.Shuffle(options.data(), count);
  for (int i = 0; i < count; ++i) {
    bool fits = true;
    for (int k = 0; k < kKinds; ++k)
      fits = fits && options[i][k] >= low[seat][k] && options[i][k] <= column[k];
    if (!fits) continue;
    for (int k = 0; k < kKinds; ++k) column[k] -= options[i][k];
    if (DealStarts(seats, index + 1, column, low, rng, out, budget)) {
      out[seat] = options[i];
      return true;
    }
    for (int k = 0; k < kKinds; ++k) column[k] += options[i][k];
  }
  return false;
}

// A full state being rebuilt from a view (ResampleAttempt), with what the steps pass on.
struct ResampleDraft {
  Data data;
  int viewer = 0;
  bool setup = false;
  std::array<std::array<int, kKinds>, kMaxPlayers> low{};  // units a seat must have picked
  std::array<int, kKinds> column{};       // units of each kind not yet accounted for
  uint32_t unseen_spells = 0;             // spells the viewer has not seen anywhere
  std::vector<int> others;                // seats whose starting picks are dealt later
  std::array<int, kMaxPlayers> hidden_spells{};
};

// A seat's tokens: the known ones as listed, the hidden ones given the free indices at random.
absl::Status ResampleTokens(const v1::MorgenlandSeatView& in, int seat, int viewer, SeatData& s,
                            Rng& rng) {
  s.token_space.fill(kInHand);
  if (in.tokens_size() > kTokens) return Invalid("seat ", seat, " lists too many tokens");
  uint8_t used = 0;
  std::vector<int> hidden_spaces;
  for (const auto& t : in.tokens()) {
    GAVEL_RETURN_IF_ERROR(CheckRange(t.space(), kSetAside, kSpaces - 1, "a token's space"));
    GAVEL_RETURN_IF_ERROR(CheckRange(t.copies(), 0, 4, "a token's copies"));
    if (t.value() == 0) {
      if (seat == viewer || t.face_up() || t.space() == kInHand || t.copies())
        return Invalid("only other seats' face-down tokens may be hidden");
      hidden_spaces.push_back(t.space());
      continue;
    }
    GAVEL_RETURN_IF_ERROR(CheckRange(t.index(), 0, kTokens - 1, "a token index"));
    const int token = static_cast<int>(t.index());
    if ((used >> token & 1) || t.value() != static_cast<uint32_t>(TokenValue(token)))
      return Invalid("seat ", seat, "'s tokens are inconsistent");
    used |= static_cast<uint8_t>(1 << token);
    s.token_space[token] = static_cast<int8_t>(t.space());
    if (t.face_up()) s.face_up |= static_cast<uint8_t>(1 << token);
    s.copies[token] = static_cast<uint8_t>(t.copies());
  }
  if (seat == viewer && used != 0xFF) return Invalid("the viewer's tokens must all be listed");
  std::vector<int> free_tokens;
  for (int token = 0; token < kTokens; ++token)
    if (!(used >> token & 1)) free_tokens.push_back(token);
  rng.Shuffle(free_tokens.data(), static_cast<int>(free_tokens.size()));
  for (size_t i = 0; i < hidden_spaces.size(); ++i)
    s.token_space[free_tokens[i]] = static_cast<int8_t>(hidden_spaces[i]);
  return absl::OkStatus();
}

// Another seat's treasure as far as it is public, its shown spells and how many are hidden;
// during setup its picks are drawn at once, later they are dealt for all seats together.
absl::Status ResampleOtherHoldings(const v1::MorgenlandSeatView& in, int seat, ResampleDraft& draft,
                                   Rng& rng) {
  SeatData& s = draft.data.seats[seat];
  for (int kind = 0; kind < kKinds; ++kind) {
    const int shown = in.treasure().units(kind);
    GAVEL_RETURN_IF_ERROR(CheckRange(shown, -3, kUnitsPerKind, "a seat's public treasure"));
    draft.low[seat][kind] = std::max(0, -shown);
    s.treasure[kind] = static_cast<uint8_t>(std::max(0, shown));  // corrected by DealOtherStarts
  }
  if (draft.setup) {
    for (uint32_t i = 0; i < in.picks(); ++i) ++s.start[rng.Below(kKinds)];
  } else {
    draft.others.push_back(seat);
  }
  s.spells = in.spells();
  s.known_by[draft.viewer] = in.spells();
  draft.unseen_spells &= ~s.spells;
  if (std::popcount(in.spells()) > static_cast<int>(in.spell_count()))
    return Invalid("seat ", seat, " shows too many spells");
  draft.hidden_spells[seat] = static_cast<int>(in.spell_count()) - std::popcount(in.spells());
  return absl::OkStatus();
}

absl::Status ResampleSeat(const v1::MorgenlandSeatView& in, int seat, ResampleDraft& draft, Rng& rng) {
  SeatData& s = draft.data.seats[seat];
  GAVEL_RETURN_IF_ERROR(DecodeSeatPublic(in, &s));
  if (in.spells() > kAllSpells || in.spell_count() > kSpells) return Invalid("seat ", seat, "'s spells are invalid");
  GAVEL_RETURN_IF_ERROR(ResampleTokens(in, seat, draft.viewer, s, rng));
  if (in.treasure().units_size() != kKinds) return Invalid("seat ", seat, "'s treasure is malformed");
  GAVEL_RETURN_IF_ERROR(CheckRange(in.picks(), 0, 3, "the starting picks"));
  const bool viewer = seat == draft.viewer;
  if (viewer) {
    GAVEL_RETURN_IF_ERROR(FromProto(in.treasure(), kUnitsPerKind, "the viewer's treasure", &s.treasure));
    GAVEL_RETURN_IF_ERROR(FromProto(in.start(), 3, "the viewer's starting picks", &s.start));
    s.spells = in.spells();
    draft.unseen_spells &= ~s.spells;
  } else {
    GAVEL_RETURN_IF_ERROR(ResampleOtherHoldings(in, seat, draft, rng));
  }
  if (!draft.setup || viewer)
    for (int kind = 0; kind < kKinds; ++kind)
      draft.column[kind] -= viewer ? s.treasure[kind] : in.treasure().units(kind);
  return absl::OkStatus();
}

// The other seats' starting picks, consistent with the units still unaccounted for.
absl::Status DealOtherStarts(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  for (int c : draft.column)
    if (c < 0) return Invalid("the public treasure exceeds the units in play");
  std::array<std::array<uint8_t, kKinds>, kMaxPlayers> starts{};
  int budget = 5000;
  if (!DealStarts(draft.others, 0, draft.column, draft.low, rng, starts, budget))
    return Invalid("no starting picks fit the view");
  for (int seat : draft.others) {
    SeatData& s = draft.data.seats[seat];
    s.start = starts[seat];
    for (int kind = 0; kind < kKinds; ++kind)
      s.treasure[kind] = static_cast<uint8_t>(view.seats(seat).treasure().units(kind) + starts[seat][kind]);
  }
  return absl::OkStatus();
}

// Others' unseen spells, hidden tent cards and the spell deck, from the unseen cards.
absl::Status DealSpells(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  Data& data = draft.data;
  std::vector<int> pool;
  for (int spell = 0; spell < kSpells; ++spell)
    if (draft.unseen_spells >> spell & 1) pool.push_back(spell);
  rng.Shuffle(pool.data(), static_cast<int>(pool.size()));
  size_t next = 0;
  for (int seat = 0; seat < data.players; ++seat) {
    for (int i = 0; i < draft.hidden_spells[seat]; ++i) {
      if (next >= pool.size()) return Invalid("the view's spell counts exceed the cards");
      data.seats[seat].spells |= 1u << pool[next++];
    }
  }
  for (int8_t& spell : data.tent) {
    if (spell != kSpells) continue;
    if (next >= pool.size()) return Invalid("the view's tent exceeds the cards");
    spell = static_cast<int8_t>(pool[next++]);
  }
  if (pool.size() - next != view.spell_deck_count()) return Invalid("the spell deck count does not fit");
  for (; next < pool.size(); ++next) data.spell_deck |= 1u << pool[next];
  return absl::OkStatus();
}

// One room as the viewer sees it: sizes, knowledge, and the artifacts it knows (shuffled when
// it does not know their order); `unknown` loses what is seen, `unknown_rooms` gets the room
// when the viewer does not know its set.
absl::Status ReadRoom(const v1::MorgenlandRoomView& r, int room, ResampleDraft& draft,
                      std::array<int, kArtifactTypes>& unknown, std::vector<int>& unknown_rooms, Rng& rng) {
  Data& data = draft.data;
  const int n = data.players;
  GAVEL_RETURN_IF_ERROR(CheckRange(r.stack_size(), 0, kMaxStack, "a stack size"));
  GAVEL_RETURN_IF_ERROR(CheckRange(r.face_up(), -1, kArtifactTypes - 1, "a face-up artifact"));
  data.stack_size[room] = static_cast<uint8_t>(r.stack_size());
  data.face_up[room] = static_cast<int8_t>(r.face_up());
  GAVEL_RETURN_IF_ERROR(CheckRange(r.set_known_by(), 0, (1 << n) - 1, "a room's knowledge"));
  GAVEL_RETURN_IF_ERROR(CheckRange(r.order_known_by(), 0, (1 << n) - 1, "a room's knowledge"));
  data.set_known[room] = static_cast<uint8_t>(r.set_known_by());
  data.order_known[room] = static_cast<uint8_t>(r.order_known_by());
  if (r.face_up() >= 0) --unknown[r.face_up()];
  const int viewer = draft.viewer;
  if (!(data.set_known[room] >> viewer & 1)) {
    if (r.known_size() != 0) return Invalid("the viewer cannot know room ", room + 1);
    unknown_rooms.push_back(room);
    return absl::OkStatus();
  }
  if (r.known_size() != static_cast<int>(r.stack_size()) ||
      r.order_known() != static_cast<bool>(data.order_known[room] >> viewer & 1))
    return Invalid("a room's known artifacts do not fit its stack");
  for (int i = 0; i < r.known_size(); ++i) {
    GAVEL_RETURN_IF_ERROR(CheckRange(r.known(i), 0, kArtifactTypes - 1, "a known artifact"));
    data.stack[room][i] = static_cast<int8_t>(r.known(i));
    --unknown[r.known(i)];
  }
  if (!r.order_known()) rng.Shuffle(data.stack[room].data(), r.known_size());
  return absl::OkStatus();
}

// Artifacts: known rooms keep what the viewer saw; the rest is re-dealt.
absl::Status DealArtifacts(const v1::MorgenlandView& view, ResampleDraft& draft, Rng& rng) {
  Data& data = draft.data;
  const int n = data.players;
  if (view.rooms_size() != n) return Invalid("the view must list one room per player");
  std::array<int, kArtifactTypes> unknown{};
  for (int a = 0; a < kArtifactTypes; ++a) unknown[a] = kArtifactsPerType;
  if (data.pro) GAVEL_RETURN_IF_ERROR(FromProto(view.box(), kArtifactsPerType, "the box", &data.box));
  for (int a = 0; a < kArtifactTypes; ++a) {
    unknown[a] -= data.box[a];
    for (int seat = 0; seat < n; ++seat) unknown[a] -= data.seats[seat].owned[a];
  }
  std::vector<int> unknown_rooms;
  for (int room = 0; room < n; ++room)
    GAVEL_RETURN_IF_ERROR(ReadRoom(view.rooms(room), room, draft, unknown, unknown_rooms, rng));
  std::vector<int8_t> artifacts;
  for (int a = 0; a < kArtifactTypes; ++a) {
    if (unknown[a] < 0) return Invalid("the view shows too many ", ArtifactName(a), " artifacts");
    for (int i = 0; i < unknown[a]; ++i) artifacts.push_back(static_cast<int8_t>(a));
  }
  rng.Shuffle(artifacts.data(), static_cast<int>(artifacts.size()));
  size_t next = 0;
  for (int room : unknown_rooms) {
    for (int i = 0; i < data.stack_size[room]; ++i) {
      if (next >= artifacts.size()) return Invalid("the stacks exceed the artifacts");
      data.stack[room][i] = artifacts[next++];
    }
  }
  for (; next < artifacts.size(); ++next) {
    if (data.pro) return Invalid("the artifacts are not all accounted for");
    ++data.box[artifacts[next]];
  }
  return absl::OkStatus();
}

}  // namespace

// Rebuilds a full state from a view: the viewer's own holdings as shown; other seats'
// face-down token values, starting picks and unseen spells, the unknown artifacts and the
// spell deck re-dealt at random.
absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::Resample(const v1::View& view_proto,
                                                                    uint64_t seed) const {
  v1::MorgenlandView view;
  GAVEL_RETURN_IF_ERROR(UnpackAny(view_proto.view(), &view, "the morgenland view"));
  // A deal can contradict what the seats did (a payment under way needs fitting kinds):
  // such deals are drawn again.
  Rng rng(Rng::FromSeed(seed));
  absl::Status last;
  for (int attempt = 0; attempt < 64; ++attempt) {
    auto state = ResampleAttempt(view, rng);
    if (state.ok()) return state;
    if (attempt == 0) last = state.status();
  }
  return last;
}

absl::StatusOr<std::unique_ptr<State>> MorgenlandGameImpl::ResampleAttempt(
    const v1::MorgenlandView& view, Rng& rng) const {
  ResampleDraft draft;
  Data& data = draft.data;
  GAVEL_RETURN_IF_ERROR(DecodePublic(view, &data));
  const int n = data.players;
  draft.viewer = view.seat();
  GAVEL_RETURN_IF_ERROR(CheckRange(draft.viewer, 0, n - 1, "the viewer"));
  GAVEL_RETURN_IF_ERROR(DecodeTent(view.tent(), &data, true));
  draft.setup = data.phase == Phase::kPick;
  for (int kind = 0; kind < kKinds; ++kind) {
    draft.column[kind] = kUnitsPerKind - data.bank[kind];
    for (uint8_t shelf : data.shelves[kind]) draft.column[kind] -= shelf;
  }
  draft.unseen_spells = data.pro ? kAllSpells & ~data.discards : 0;
  for (int i = 0; i < data.pending_count; ++i) draft.unseen_spells &= ~(1u << data.pending[i].spell);
  for (int8_t spell : data.tent)
    if (spell >= 0 && spell < kSpells) draft.unseen_spells &= ~(1u << spell);
  for (int seat = 0; seat < n; ++seat) GAVEL_RETURN_IF_ERROR(ResampleSeat(view.seats(seat), seat, draft, rng));
  if (!draft.setup) GAVEL_RETURN_IF_ERROR(DealOtherStarts(view, draft, rng));
  GAVEL_RETURN_IF_ERROR(DealSpells(view, draft, rng));
  GAVEL_RETURN_IF_ERROR(DealArtifacts(view, draft, rng));
  data.rng = rng.state();
  GAVEL_RETURN_IF_ERROR(Validate(data));
  return std::unique_ptr<State>(std::make_unique<MorgenlandState>(data));
}

}  // namespace gavel::morgenland
