// Moonlight Market rules: the test vectors of shared/rules/moonlight-market.md §13.
#include "engine/moonlight_market/moonlight_market.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gavel/v1/moonlight_market.pb.h"
#include "tests/property_suite.h"

namespace gavel::moonlight_market {
namespace {

GAVEL_PROPERTY_SUITE(MoonlightMarket, MoonlightMarketGame());

}  // namespace
}  // namespace gavel::moonlight_market
