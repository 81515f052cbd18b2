// Moonlight Market's round and pass ends and its scorings: the leftover cards, the 4/2/1
// pass scoring of each colour, the two final scorings and the result.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/ranking.h"
#include "engine/moonlight_market/moonlight_market.h"
#include "engine/moonlight_market/moonlight_market_names.h"
#include "gavel/v1/moonlight_market.pb.h"

namespace gavel::moonlight_market {

void MoonlightState::EndRound(EventSink* events) {
  for (int seat = 0; seat < data_.participants(); ++seat) data_.seats[seat].taken = -1;
  if (++data_.round < kRounds) {
    StartRound(events);
    return;
  }
  data_.round = 0;
  // The leftover card goes under the pile, except in pass 4 (docs/rules/moonlight_market.md §4.4).
  if (data_.pass + 1 < kPasses) {
    for (int seat = 0; seat < data_.humans; ++seat) {
      SeatData& holder = data_.seats[seat];
      const int card = NthCard(holder.hand, 0);
      holder.under |= holder.hand;
      holder.hand = 0;
      if (events) {
        EventDraft<v1::MoonlightEvent> draft;
        v1::MoonlightEvent& event = *draft;
        event.mutable_card_put_under()->set_seat(seat);
        events->Emit(AllBut(seat), event,
                     absl::StrCat("seat ", seat, " puts its last card under its pile"));
        event.mutable_card_put_under()->set_card(card);
        events->Emit(OnlySeat(seat), event,
                     absl::StrCat("seat ", seat, " puts its ", card, " under its pile"));
      }
    }
  }
  ScorePass(events);
  if (++data_.pass < kPasses) {
    StartPass(events);
    return;
  }
  ScoreFinal(events);
}

std::vector<int> ColourPoints(const Data& data, int colour, std::vector<int>* values_out,
                              std::vector<bool>* eligible_out) {
  const int n = data.participants();
  std::vector<int> values(n);
  std::vector<bool> eligible(n);
  for (int seat = 0; seat < n; ++seat) {
    const auto tiles = Tiles(data.seats[seat].chains[colour]);
    values[seat] = ChainValue(tiles);
    eligible[seat] = Eligible(tiles);
  }
  std::vector<int> points = Awards(values, eligible, data.competition);
  if (values_out) *values_out = std::move(values);
  if (eligible_out) *eligible_out = std::move(eligible);
  return points;
}

std::vector<int> FinalPoints(const Data& data, bool seals, std::vector<int>* values_out,
                             std::vector<bool>* eligible_out) {
  const int n = data.participants();
  std::vector<int> values(n);
  std::vector<bool> eligible(n);
  for (int seat = 0; seat < n; ++seat) {
    const SeatData& holder = data.seats[seat];
    // The last card: a human's kept card, a bot's one unrevealed card.
    values[seat] = seals ? holder.seals : NthCard(holder.hand | holder.pile, 0);
    eligible[seat] = !seals || holder.seals > 0;
  }
  std::vector<int> points = Awards(values, eligible, data.competition);
  if (values_out) *values_out = std::move(values);
  if (eligible_out) *eligible_out = std::move(eligible);
  return points;
}

void MoonlightState::AddPrestige(const std::vector<int>& points) {
  for (size_t seat = 0; seat < points.size(); ++seat)
    data_.seats[seat].prestige = static_cast<int16_t>(data_.seats[seat].prestige + points[seat]);
}

void MoonlightState::ScorePass(EventSink* events) {
  const int n = data_.participants();
  for (int colour = 0; colour < kColours; ++colour) {
    std::vector<int> values;
    std::vector<bool> eligible;
    const std::vector<int> points = ColourPoints(data_, colour, &values, &eligible);
    AddPrestige(points);
    if (!events) continue;
    EventDraft<v1::MoonlightEvent> draft;
    v1::MoonlightEvent& event = *draft;
    auto* scored = event.mutable_colour_scored();
    scored->set_pass(data_.pass);
    scored->set_colour(ToColour(colour));
    std::vector<std::string> parts;
    for (int seat = 0; seat < n; ++seat) {
      scored->add_values(eligible[seat] ? values[seat] : -1);
      scored->add_points(points[seat]);
      if (points[seat] > 0) parts.push_back(absl::StrCat(SeatName(data_, seat), " +", points[seat]));
    }
    events->Emit(kEveryone, event,
                 absl::StrCat(kColourNames[colour], " scores: ",
                              parts.empty() ? "nobody" : absl::StrJoin(parts, ", ")));
  }
}

void MoonlightState::ScoreFinal(EventSink* events) {
  const int n = data_.participants();
  for (const bool seals : {true, false}) {
    std::vector<int> values;
    std::vector<bool> eligible;
    const std::vector<int> points = FinalPoints(data_, seals, &values, &eligible);
    AddPrestige(points);
    if (!events) continue;
    EventDraft<v1::MoonlightEvent> draft;
    v1::MoonlightEvent& event = *draft;
    auto* scored = event.mutable_final_scored();
    scored->set_kind(seals ? v1::MoonlightEvent::FINAL_KIND_SEALS
                           : v1::MoonlightEvent::FINAL_KIND_LAST_CARD);
    for (int seat = 0; seat < n; ++seat) {
      scored->add_values(eligible[seat] ? values[seat] : -1);
      scored->add_points(points[seat]);
    }
    events->Emit(kEveryone, event,
                 absl::StrCat("final scoring of the ", seals ? "seals" : "last cards", ": ",
                              absl::StrJoin(points, ", ")));
  }
  data_.phase = Phase::kFinished;
  data_.turn = -1;
  if (events) {
    EventDraft<v1::MoonlightEvent> draft;
    v1::MoonlightEvent& event = *draft;
    auto* over = event.mutable_game_over();
    const Outcome result = outcome();
    for (int seat = 0; seat < n; ++seat) {
      over->add_scores(static_cast<int>(result.scores[seat]));
      over->add_ranks(result.ranks[seat]);
    }
    events->Emit(kEveryone, event,
                 absl::StrCat("game over; prestige ", absl::StrJoin(result.scores, ", ")));
  }
}

Outcome MoonlightState::outcome() const {
  PerSeat<int> totals(data_.participants());
  for (int seat = 0; seat < data_.participants(); ++seat) totals[seat] = data_.seats[seat].prestige;
  return RankedOutcome(PerSeat<double>(totals.begin(), totals.end()), totals, data_.phase == Phase::kFinished);
}

}  // namespace gavel::moonlight_market
