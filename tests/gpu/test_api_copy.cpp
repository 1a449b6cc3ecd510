// sol::copy through the public API: the refusals (before any CUDA call, so they run without a
// GPU) and on a GPU every byte arriving at odd sizes and alignments, on both of the
// dispatcher's paths (sol's vector kernel where the pointers share a 16-byte offset,
// cudaMemcpyAsync where they do not).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_env.hpp"

#ifdef SOL_WITH_CUDA
#include <cstdint>
#include <string>
#include <vector>

#include "sol/kernels.hpp"
#include "tests/gpu/api_test_util.hpp"

using namespace sol;
using sol::test::DevBuf;
using sol::test::fake_pointer;

TEST(ApiCopy, RefusesNullAndOverlap) {
  SOL_EXPECT_BAD_INPUT(copy({nullptr, fake_pointer(1), 16}, nullptr), "src is nullptr");
  SOL_EXPECT_BAD_INPUT(copy({fake_pointer(1), nullptr, 16}, nullptr), "dst is nullptr");
  char* p = static_cast<char*>(fake_pointer(1));
  SOL_EXPECT_BAD_INPUT(copy({p, p + 8, 16}, nullptr), "overlap");
  SOL_EXPECT_BAD_INPUT(explain_copy({p + 8, p, 16}), "overlap");
}

TEST(ApiCopy, ExplainFollowsAlignment) {
  char* p = static_cast<char*>(fake_pointer(1));
  char* q = static_cast<char*>(fake_pointer(3));
  EXPECT_EQ(explain_copy({p, q + 1, 4096}).implementation, "cudaMemcpyAsync");  // no shared 16-byte offset
  EXPECT_EQ(explain_copy({p, q, 4097}).implementation, "cudaMemcpyAsync");      // not whole 4-byte words
  EXPECT_EQ(explain_copy({p, q, 0}).implementation, "none");
  const size_t gib = size_t(1) << 30;
  EXPECT_NE(explain_copy({p, p + 2 * gib, gib}).reason.find("nearest measured"), std::string::npos);
}

TEST(ApiCopy, EveryByteArrives) {
  SOL_REQUIRE_GPU_OR_SKIP();
  const size_t sizes[] = {1, 3, 4, 17, 4096, 65536 * 4 + 12, 1000003, (size_t(1) << 22) + 4};
  for (const size_t bytes : sizes)
    for (const auto& [src_off, dst_off] : {std::pair{0, 0}, std::pair{4, 4}, std::pair{1, 1}, std::pair{0, 3}}) {
      std::vector<uint8_t> host(bytes);
      for (size_t i = 0; i < bytes; ++i) host[i] = uint8_t((i * 2654435761u) >> 13);
      DevBuf src(bytes + 16), dst(bytes + 32);
      src.upload(host, size_t(src_off));
      const CopyArgs a{src.get<char>() + src_off, dst.get<char>() + dst_off, bytes};
      const Choice c = explain_copy(a);
      SCOPED_TRACE(std::to_string(bytes) + " bytes, offsets " + std::to_string(src_off) + "/" + std::to_string(dst_off) +
                   ": " + c.implementation);
      copy(a, nullptr);
      const std::vector<uint8_t> got = dst.download<uint8_t>(bytes + 32);
      EXPECT_TRUE(std::vector<uint8_t>(got.begin() + dst_off, got.begin() + dst_off + long(bytes)) == host);
      for (size_t i = 0; i < size_t(dst_off); ++i) EXPECT_EQ(got[i], 0) << "wrote before dst";
      for (size_t i = size_t(dst_off) + bytes; i < got.size(); ++i) ASSERT_EQ(got[i], 0) << "wrote past dst + bytes";
    }
}

#else
TEST(ApiCopy, NeedsCuda) { SOL_REQUIRE_GPU_OR_SKIP(); }
#endif  // SOL_WITH_CUDA
