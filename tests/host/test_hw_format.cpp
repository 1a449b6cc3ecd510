// The text formatting every command prints with: SI numbers with significant digits, binary
// byte sizes, and a table whose columns line up even with multi-byte UTF-8 text.
#include <gtest/gtest.h>

#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"

using namespace sol;

TEST(HwFormat, SiSignificantDigits) {
  EXPECT_EQ(si(989.4e12, "FLOP/s"), "989.4 TFLOP/s");
  EXPECT_EQ(si(3.35e12, "B/s"), "3.35 TB/s");
  EXPECT_EQ(si(1555e9, "B/s"), "1.555 TB/s");
  EXPECT_EQ(si(1.2e-3, "s"), "1.2 ms");
  EXPECT_EQ(si(4.5e-6, "s"), "4.5 µs");
  EXPECT_EQ(si(0, "B/s"), "0 B/s");
  EXPECT_EQ(si(-2.5e6, "W"), "-2.5 MW");
  EXPECT_EQ(si(12, "B"), "12 B");
  EXPECT_EQ(si(1.23456e6, "X", 3), "1.23 MX");
  EXPECT_EQ(si(2.25e18, "FLOP/s"), "2.25 EFLOP/s");
  EXPECT_EQ(si(5e21, "B"), "5000 EB");  // beyond the last prefix the mantissa grows
}

TEST(HwFormat, SiRoundsUpIntoTheNextPrefix) {
  EXPECT_EQ(si(999.96e9, "B/s"), "1 TB/s");
  EXPECT_EQ(si(999.94e9, "B/s"), "999.9 GB/s");
  EXPECT_EQ(si(0.99999, "s"), "1 s");
}

TEST(HwFormat, BytesIec) {
  EXPECT_EQ(bytes_iec(50.0 * 1024 * 1024), "50 MiB");
  EXPECT_EQ(bytes_iec(512), "512 B");
  EXPECT_EQ(bytes_iec(1536), "1.5 KiB");
  EXPECT_EQ(bytes_iec(228 * 1024), "228 KiB");
  EXPECT_EQ(bytes_iec(80.0 * 1024 * 1024 * 1024), "80 GiB");
  EXPECT_EQ(bytes_iec(0), "0 B");
}

TEST(HwFormat, PlainNumbers) {
  EXPECT_EQ(num(528), "528");
  EXPECT_EQ(num(32768), "32768");
  EXPECT_EQ(num(1.83), "1.83");
  EXPECT_EQ(num(200.6012), "200.6");
  EXPECT_EQ(num(0.000123456), "0.0001235");
}

TEST(HwFormat, TableAlignsColumns) {
  Table t({"name", "peak", "note"});
  t.align(2, Table::Align::Left);
  t.add_row({"h100", "989.4 TFLOP/s", "1830 MHz × 528"}).add_row({"a100-80gb", "312 TFLOP/s"});
  EXPECT_EQ(t.rows(), 2u);
  std::istringstream in(t.str());
  std::string header, rule, r1, r2, extra;
  std::getline(in, header);
  std::getline(in, rule);
  std::getline(in, r1);
  std::getline(in, r2);
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(rule.find_first_not_of('-'), std::string::npos);
  EXPECT_EQ(display_width(rule), display_width(r1));  // r1 has the widest last cell
  // Right-aligned: the peaks end in the same display column.
  const size_t end1 = display_width(r1.substr(0, r1.find("TFLOP/s") + 7));
  const size_t end2 = display_width(r2.substr(0, r2.find("TFLOP/s") + 7));
  EXPECT_EQ(end1, end2);
  // Left-aligned first column: every row starts with its name.
  EXPECT_EQ(r2.rfind("a100-80gb", 0), 0u);
  // No trailing blanks where the last cell is empty.
  EXPECT_NE(r2.back(), ' ');
}

TEST(HwFormat, TableRejectsBadUse) {
  Table t({"a", "b"});
  EXPECT_THROW(t.add_row({"1", "2", "3"}), Error);
  EXPECT_THROW(t.align(2, Table::Align::Left), Error);
  EXPECT_EQ(display_width("µs ×"), 4u);
}
