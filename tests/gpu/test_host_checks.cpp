// The host side of the Cases' checks (no GPU needed): the GEMM Case's random operands as the check
// decodes them (kernels/gemm/tc/inputs.cuh) against CUDA's own conversions of the same bits, and
// compare() spreading costly samples over the host's cores.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <set>
#include <thread>

#include "kernels/common/compare.cuh"
#include "kernels/gemm/tc/inputs.cuh"

namespace tc = sol::kernels::gemm::tc;

TEST(GemmInputs, OperandValuesAreTheStoredElements) {
  for (uint64_t i = 0; i < 200000; ++i) {
    __half_raw h;
    h.x = tc::operand_bits(tc::InType::fp16, 7, i);
    ASSERT_EQ(tc::operand_value(tc::InType::fp16, 7, i), double(__half2float(__half(h)))) << "fp16 element " << i;
    __nv_bfloat16_raw b;
    b.x = tc::operand_bits(tc::InType::bf16, 9, i);
    ASSERT_EQ(tc::operand_value(tc::InType::bf16, 9, i), double(__bfloat162float(__nv_bfloat16(b)))) << "bf16 element " << i;
  }
}

TEST(HostCheck, CostlySamplesSpreadOverTheCores) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one host core: nothing to spread over";
  const auto sample = [](int64_t i) { return sol::kernels::Sample{double(i % 7) + 1e-3, double(i % 7), false}; };
  std::mutex lock;
  std::set<std::thread::id> threads;
  const auto watched = [&](int64_t i) {
    {
      std::lock_guard<std::mutex> g(lock);
      threads.insert(std::this_thread::get_id());
    }
    return sample(i);
  };
  // 4096 samples: one chunk as plain elements, several where each is a 14336-long dot product.
  const sol::CheckResult plain = sol::kernels::compare(4096, 1e-3, sample);
  const sol::CheckResult costly = sol::kernels::compare(4096, 1e-3, watched, 2 * 14336);
  EXPECT_GT(threads.size(), 1u);
  EXPECT_NEAR(costly.rel_l2, plain.rel_l2, 1e-12 * plain.rel_l2);
  EXPECT_EQ(costly.ok, plain.ok);
}
