// Morgenland rules: the test vectors of shared/rules/morgenland.md §12, the artifacts and
// spells, and the generic property suite.
#include "engine/morgenland/morgenland.h"

#include "engine/morgenland/morgenland_magic.h"
#include "gavel/v1/morgenland.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/property_suite.h"

namespace gavel::morgenland {
namespace {

GAVEL_PROPERTY_SUITE(Morgenland, MorgenlandGame());

}  // namespace
}  // namespace gavel::morgenland
