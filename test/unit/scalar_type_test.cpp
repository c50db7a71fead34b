// The implicit-conversion relation: lossless conversions only.
#include "support/scalar_type.h"

#include <gtest/gtest.h>

namespace tmc {
namespace {

using S = ScalarKind;

TEST(ScalarType, WideningIsLossless) {
  EXPECT_TRUE(IsLosslessConversion(S::I8, S::I32));
  EXPECT_TRUE(IsLosslessConversion(S::U16, S::I32));
  EXPECT_TRUE(IsLosslessConversion(S::F16, S::F32));
  EXPECT_TRUE(IsLosslessConversion(S::BF16, S::F32));
  EXPECT_TRUE(IsLosslessConversion(S::I32, S::F64));
  EXPECT_TRUE(IsLosslessConversion(S::I16, S::F32));
}

TEST(ScalarType, NarrowingIsNot) {
  EXPECT_FALSE(IsLosslessConversion(S::I32, S::I16));
  EXPECT_FALSE(IsLosslessConversion(S::I32, S::U32));
  EXPECT_FALSE(IsLosslessConversion(S::U32, S::I32));
  EXPECT_FALSE(IsLosslessConversion(S::I32, S::F32));
  EXPECT_FALSE(IsLosslessConversion(S::F32, S::F16));
  EXPECT_FALSE(IsLosslessConversion(S::F16, S::BF16));
  EXPECT_FALSE(IsLosslessConversion(S::BF16, S::F16));
  EXPECT_FALSE(IsLosslessConversion(S::F32, S::I64));
  EXPECT_FALSE(IsLosslessConversion(S::Bool, S::I32));
}

TEST(ScalarType, NamesRoundTrip) {
  for (int k = 0; k <= static_cast<int>(S::F64); ++k) {
    S s = static_cast<S>(k);
    EXPECT_EQ(ParseScalar(ScalarName(s)), s);
  }
  EXPECT_EQ(ParseScalar("int"), S::I32);
  EXPECT_FALSE(ParseScalar("f8").has_value());
}

}  // namespace
}  // namespace tmc
