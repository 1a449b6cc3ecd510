#include <gtest/gtest.h>

#include "sol/core/dtype.hpp"
#include "sol/core/error.hpp"
#include "sol/registry.hpp"

using namespace sol;

TEST(DType, BytesAndNames) {
  EXPECT_EQ(dtype_bytes(DType::bf16), 2);
  EXPECT_EQ(dtype_bytes(DType::tf32), 4);
  EXPECT_EQ(dtype_bytes(DType::fp8_e5m2), 1);
  for (DType t : all_dtypes()) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_EQ(parse_dtype("FP8"), DType::fp8_e4m3);
  EXPECT_EQ(dtype_peak_key(DType::fp8_e5m2), "fp8");
}

TEST(DType, UnknownIsBadInput) {
  try {
    parse_dtype("fp12");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    EXPECT_NE(e.line().find("fp12"), std::string::npos);
  }
}

TEST(Shape, ParseSuffixesAndPowers) {
  Shape s = Shape::parse("n=2^28,rows=4k,cols=3");
  EXPECT_EQ(s.at("n"), int64_t(1) << 28);
  EXPECT_EQ(s.at("rows"), 4096);
  EXPECT_EQ(s.at("cols"), 3);
  EXPECT_EQ(s.str(), "n=268435456,rows=4096,cols=3");
  EXPECT_EQ(Shape::parse(s.str()), s);
  EXPECT_EQ(s.get("missing", 7), 7);
}

TEST(Shape, BadInputs) {
  EXPECT_THROW(Shape::parse(""), Error);
  EXPECT_THROW(Shape::parse("n"), Error);
  EXPECT_THROW(Shape::parse("n=abc"), Error);
  EXPECT_THROW(Shape::parse("n=2^70"), Error);
  EXPECT_THROW(Shape::parse("n=1,n=2"), Error);
  EXPECT_THROW(Shape::parse("n=9999999999999G"), Error);
  EXPECT_THROW(Shape::parse("n=1").at("m"), Error);
}
