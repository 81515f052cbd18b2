// Mercado rules: the test vectors of shared/rules/mercado.md §12 and validation.
#include "engine/mercado/mercado.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "gavel/v1/mercado.pb.h"
#include "tests/property_suite.h"

namespace gavel::mercado {
namespace {

GAVEL_PROPERTY_SUITE(Mercado, MercadoGame());

}  // namespace
}  // namespace gavel::mercado
