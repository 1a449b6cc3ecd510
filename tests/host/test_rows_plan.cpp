// The register kernel's configurations (kernels/rows/launch.hpp) without a GPU: every row it
// takes is covered, every thread holds about the same number of vectors, and the hidden sizes of
// the model set get as many loads per thread as the powers of two do.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/rows/launch.hpp"

using namespace sol::kernels::rows;

TEST(RowsPlan, EveryRowOfTheRegisterKernelIsCoveredAndNoThreadIdles) {
  const int64_t most = register_max_cols(2) / 8;  // 16-byte vectors of the longest bf16 row
  for (int64_t nvec = 1; nvec <= most; ++nvec) {
    const RegisterConfig c = register_config(nvec);
    SCOPED_TRACE("nvec = " + std::to_string(nvec));
    const int64_t lanes = c.group == kWholeBlock ? c.threads : c.group;
    ASSERT_GE(lanes * c.vecs, nvec);                          // the row fits its group's registers
    ASSERT_LE(c.threads, 1024);
    ASSERT_TRUE(c.vecs == kRegisterVecs || c.vecs == 2 * kRegisterVecs);
    if (c.group == kWholeBlock) {
      ASSERT_EQ(c.threads % 32, 0);                           // whole warps
      ASSERT_GT(nvec, 32 * kRegisterVecs);
      ASSERT_LT((c.threads - 32) * c.vecs, nvec);             // one warp fewer would not hold it
    } else {
      ASSERT_EQ(c.group & (c.group - 1), 0);                  // a power of two: divides the warp
      ASSERT_LE(c.group, 32);
      ASSERT_EQ(c.threads, kRowMinBlockThreads);
      ASSERT_TRUE(c.group == 1 || (c.group / 2) * c.vecs < nvec);  // the smallest group that holds it
    }
  }
}

TEST(RowsPlan, HiddenSizesKeepFourLoadsAThread) {
  // bf16 rows: 5120 columns are 640 vectors, 160 threads of 4 (not 512 threads of one or two).
  EXPECT_EQ(register_config(5120 / 8).threads, 160);
  EXPECT_EQ(register_config(6144 / 8).threads, 192);
  EXPECT_EQ(register_config(14336 / 8).threads, 448);
  EXPECT_EQ(register_config(4096 / 8).threads, 128);
  // qk-norm's 128 columns: 4 lanes a row, 8 rows a warp.
  EXPECT_EQ(register_config(128 / 8).group, 4);
  EXPECT_EQ(register_config(1).group, 1);
  // Past 1024 threads of 4: 8 a thread (65536 bf16 columns: 1024 threads).
  EXPECT_EQ(register_config(32768 / 8).vecs, 4);
  EXPECT_EQ(register_config(32768 / 8).threads, 1024);
  EXPECT_EQ(register_config(65536 / 8).vecs, 8);
  EXPECT_EQ(register_config(65536 / 8).threads, 1024);
  EXPECT_EQ(register_config(40960 / 8).threads, 640);
}
