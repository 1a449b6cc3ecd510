// The one size grammar (sol/core/size.hpp): counts, byte sizes and tuples, and its errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "sol/core/error.hpp"
#include "sol/core/size.hpp"
#include "sol/core/suggest.hpp"
#include "sol/registry.hpp"

namespace sol {
namespace {

// The one-line message a bad value gives, or "" when it parses.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadInput);
    return e.line();
  }
  return "";
}

TEST(Size, Counts) {
  EXPECT_EQ(parse_count("--n", "4096"), 4096);
  EXPECT_EQ(parse_count("--n", "4k"), 4096);
  EXPECT_EQ(parse_count("--n", "4K"), 4096);
  EXPECT_EQ(parse_count("--n", "3M"), 3 << 20);
  EXPECT_EQ(parse_count("--n", "2G"), int64_t(2) << 30);
  EXPECT_EQ(parse_count("--n", "1T"), int64_t(1) << 40);
  EXPECT_EQ(parse_count("--n", "2^28"), int64_t(1) << 28);
  EXPECT_EQ(parse_count("--n", "3^3"), 27);
  EXPECT_EQ(parse_count("--n", "2^62"), int64_t(1) << 62);
  EXPECT_EQ(parse_count("--n", "0"), 0);
  EXPECT_EQ(parse_count("--n", "9223372036854775807"), std::numeric_limits<int64_t>::max());
}

TEST(Size, ZeroAndOneBasesDoNotDivideByZero) {
  EXPECT_EQ(parse_count("--m", "0^1"), 0);
  EXPECT_EQ(parse_count("--m", "0^5"), 0);
  EXPECT_EQ(parse_count("--m", "0^0"), 1);
  EXPECT_EQ(parse_count("--m", "1^1000000000000"), 1);
  EXPECT_EQ(parse_count("--m", "7^0"), 1);
}

TEST(Size, BadCountsNameTheFlagAndTheForms) {
  for (const char* bad : {"", "abc", "4kk", "4.5", "1e3", "2^", "^3", "2^3^2", "2^k", "4 k", "+4", "0x10", "k"}) {
    const std::string e = error_of([&] { parse_count("--rows", bad); });
    EXPECT_NE(e.find("--rows"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("2^N"), std::string::npos) << bad << ": " << e;
  }
  // A negative exponent is refused, not read as 1.
  EXPECT_NE(error_of([] { parse_count("--n", "2^-1"); }).find("exponent"), std::string::npos);
  // A negative size is called negative, not an overflow, and INT64_MIN is never negated.
  for (const char* neg : {"-2^3", "-1", "-9223372036854775808", "-4k"}) {
    const std::string e = error_of([&] { parse_count("--rows", neg); });
    EXPECT_NE(e.find("negative"), std::string::npos) << neg << ": " << e;
    EXPECT_EQ(e.find("overflow"), std::string::npos) << neg << ": " << e;
  }
  for (const char* big : {"2^63", "2^70", "9223372036854775808", "9999999999999G", "8388608T", "99999999999999999999"})
    EXPECT_NE(error_of([&] { parse_count("--n", big); }).find("64 bits"), std::string::npos) << big;
}

TEST(Size, Bytes) {
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "40GiB"), 40.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "40GB"), 40e9);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "40gb"), 40e9);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "512 MiB"), 512.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "1.5kib"), 1536);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "2TB"), 2e12);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "1TiB"), double(int64_t(1) << 40));
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "1e9"), 1e9);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "100B"), 100);
  // The count forms mean the same as everywhere else.
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "4k"), 4096);
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "2^30"), double(1 << 30));
  EXPECT_DOUBLE_EQ(parse_bytes("--budget", "4096"), 4096);
  for (const char* bad : {"", "GiB", "40XB", "-1GiB", "0", "0GiB", "nan", "inf", "1e400", "1.5k", "2^-1", "4GiBs"}) {
    const std::string e = error_of([&] { parse_bytes("--budget", bad); });
    EXPECT_NE(e.find("--budget"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("GiB"), std::string::npos) << bad << ": " << e;
  }
}

TEST(Size, Tuples) {
  EXPECT_EQ(parse_counts("--gemm", "1000,1000,1000", 3, 3), (std::vector<int64_t>{1000, 1000, 1000}));
  EXPECT_EQ(parse_counts("--gemm", "1000x1000x1000", 3, 3), (std::vector<int64_t>{1000, 1000, 1000}));
  EXPECT_EQ(parse_counts("--gemm", "4kX2^10,8", 3, 3), (std::vector<int64_t>{4096, 1024, 8}));
  EXPECT_EQ(parse_counts("--sram", "64", 1, 3), (std::vector<int64_t>{64}));
  for (const char* bad : {"", "1,2", "1,2,3,4", "1,,3", "1x2x", "a,b,c", "1,-2,3"}) {
    const std::string e = error_of([&] { parse_counts("--gemm", bad, 3, 3); });
    EXPECT_NE(e.find("--gemm"), std::string::npos) << bad << ": " << e;
  }
}

TEST(Shape, ValuesUseTheSizeGrammar) {
  EXPECT_EQ(Shape::parse("n=2^28,rows=4k,cols=0^1").at("cols"), 0);
  EXPECT_NE(error_of([] { Shape::parse("n=2^-1"); }).find("exponent"), std::string::npos);
  EXPECT_NE(error_of([] { Shape::parse("rows=-2^3"); }).find("rows"), std::string::npos);
}

TEST(Suggest, ClosestByEditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("GPU", "gpu"), 0u);
  const std::vector<std::string> cmds = {"roofline", "report", "probe", "bench"};
  EXPECT_EQ(closest("rooflin", cmds), "roofline");
  EXPECT_EQ(closest("rport", cmds), "report");
  EXPECT_EQ(closest("xyz", cmds), "");      // nothing near
  EXPECT_EQ(closest("ab", {"xy"}), "");     // two edits of a two-letter word is no typo
  EXPECT_EQ(did_you_mean("--gpuu", {"--gpu", "--dtype"}), "; did you mean '--gpu'?");
  EXPECT_EQ(did_you_mean("--zzzzz", {"--gpu"}), "");
}

}  // namespace
}  // namespace sol
