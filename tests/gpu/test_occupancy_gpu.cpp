// The occupancy model against cudaOccupancyMaxActiveBlocksPerMultiprocessor, exactly, over a grid of
// kernels × block sizes × dynamic shared memory sizes. The kernels are PTX written here and loaded
// through cudaLibraryLoadData, so the spread of register counts (ptxas allocates what the live values
// need, capped by .maxnreg) and static shared sizes costs no nvcc time: the driver compiles them.
// A second pass sets the preferred shared-memory carve-out on each kernel (0..100 %) and compares again.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sol/model/occupancy.hpp"
#include "tests/gpu/gpu_env.hpp"

namespace {

struct PtxKernel {
  std::string name;
  int live_values;     // floats held live at once: the register demand
  int static_smem;     // bytes
  int max_registers;   // .maxnreg; 0: none
};

// A kernel that loads `live_values` floats with volatile loads (kept in order), then sums them from
// the last loaded back to the first, so every value stays live until the sum; it bounces one value
// through a static shared array so that the array is kept.
[[maybe_unused]] std::string ptx_of(const std::vector<PtxKernel>& kernels) {
  std::string p = ".version 8.0\n.target sm_80\n.address_size 64\n";
  for (const auto& k : kernels) {
    const std::string n = std::to_string(k.live_values);
    if (k.static_smem > 0) p += ".shared .align 16 .b8 smem_" + k.name + "[" + std::to_string(k.static_smem) + "];\n";
    p += ".visible .entry " + k.name + "(.param .u64 pIn, .param .u64 pOut)\n";
    if (k.max_registers > 0) p += ".maxnreg " + std::to_string(k.max_registers) + "\n";
    p += "{\n.reg .f32 %f<" + std::to_string(k.live_values + 2) + ">;\n.reg .u64 %rd<4>;\n";
    p += "ld.param.u64 %rd1, [pIn];\nld.param.u64 %rd2, [pOut];\ncvta.to.global.u64 %rd1, %rd1;\n"
         "cvta.to.global.u64 %rd2, %rd2;\n";
    for (int i = 0; i < k.live_values; ++i)
      p += "ld.volatile.global.f32 %f" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) + "];\n";
    p += "mov.f32 %f" + n + ", 0f00000000;\n";
    for (int i = k.live_values - 1; i >= 0; --i) p += "add.f32 %f" + n + ", %f" + n + ", %f" + std::to_string(i) + ";\n";
    if (k.static_smem > 0) {
      p += "st.volatile.shared.f32 [smem_" + k.name + "+" + std::to_string(k.static_smem - 4) + "], %f" + n + ";\n";
      p += "ld.volatile.shared.f32 %f" + n + ", [smem_" + k.name + "];\n";
    }
    p += "st.global.f32 [%rd2], %f" + n + ";\nret;\n}\n";
  }
  return p;
}

// Few kernels, chosen to cross every limit: registers from a handful to 255 (and a capped one that
// spills), static shared memory from none to the 48 KiB static maximum, odd sizes included.
[[maybe_unused]] std::vector<PtxKernel> kernels() {
  return {{"occ_r_small", 4, 0, 0},        {"occ_r30_s1k", 30, 1024, 0},     {"occ_r40_s5000", 40, 5000, 0},
          {"occ_r60_s12k", 60, 12288, 0},  {"occ_r90", 90, 0, 0},            {"occ_r120_s20000", 120, 20000, 0},
          {"occ_r200_s40k", 200, 40000, 0}, {"occ_r200_cap64", 200, 0, 64},  {"occ_r250_s48k", 250, 49152, 0}};
}

}  // namespace

#ifdef SOL_WITH_CUDA
#include <cuda_runtime.h>

#include "sol/hw/spec.hpp"

// Each test loads the kernels afresh, so the attributes one sets do not leak into the other.
class OccupancyGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    SOL_REQUIRE_GPU_OR_SKIP();
    const sol::results::Device d = sol::bench::device_info();
    if (d.database_row.empty()) GTEST_SKIP() << "this GPU matches no database row, so its SM limits are unknown";
    limits_ = &sol::hw::find(d.database_row).limits;
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&optin_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
    const std::string ptx = ptx_of(kernels());
    ASSERT_EQ(cudaLibraryLoadData(&library_, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0), cudaSuccess)
        << cudaGetErrorString(cudaGetLastError());
  }
  void TearDown() override {
    if (library_) {
      EXPECT_EQ(cudaLibraryUnload(library_), cudaSuccess);
    }
  }
  // The kernel, its attributes, and the largest dynamic shared memory it may then ask for (set).
  void prepare(const PtxKernel& pk, const void** fn, cudaFuncAttributes* attr, int* max_dynamic) {
    cudaKernel_t kernel = nullptr;
    ASSERT_EQ(cudaLibraryGetKernel(&kernel, library_, pk.name.c_str()), cudaSuccess) << pk.name;
    *fn = reinterpret_cast<const void*>(kernel);
    ASSERT_EQ(cudaFuncGetAttributes(attr, *fn), cudaSuccess) << pk.name;
    *max_dynamic = optin_ - int(attr->sharedSizeBytes);
    ASSERT_EQ(cudaFuncSetAttribute(*fn, cudaFuncAttributeMaxDynamicSharedMemorySize, *max_dynamic), cudaSuccess)
        << pk.name;
  }
  // The runtime's answer and the model's for one launch, which must agree; the model's in model_blocks.
  void compare(const void* fn, const cudaFuncAttributes& attr, const std::string& name, int threads, int dynamic,
               int carveout, int* model_blocks) {
    const sol::model::Occupancy o = sol::model::occupancy(
        *limits_, {threads, attr.numRegs, int64_t(attr.sharedSizeBytes), dynamic, carveout});
    *model_blocks = o.blocks_per_sm;
    int runtime = -1;
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, fn, threads, size_t(dynamic)), cudaSuccess);
    EXPECT_EQ(o.blocks_per_sm, runtime) << name << ": " << attr.numRegs << " registers, " << threads << " threads, "
                                        << attr.sharedSizeBytes << " + " << dynamic << " B shared, carve-out "
                                        << carveout << " % → model's SM capacity " << o.carveout_bytes << " B";
  }

  const sol::hw::SmLimits* limits_ = nullptr;
  int optin_ = 0;
  cudaLibrary_t library_ = nullptr;
};

TEST_F(OccupancyGpu, ModelMatchesTheRuntimeExactly) {
  EXPECT_EQ(optin_, limits_->max_shared_bytes_per_block) << "the database's per-block shared memory limit";
  const int block_sizes[] = {32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024};
  const int dynamic_sizes[] = {0, 1, 2000, 8192, 30000, 65536, 100000, 150000, 200000, 232448};
  int compared = 0, distinct_registers = 0, last_registers = -1;
  for (const PtxKernel& pk : kernels()) {
    const void* fn = nullptr;
    cudaFuncAttributes attr{};
    int max_dynamic = 0;
    ASSERT_NO_FATAL_FAILURE(prepare(pk, &fn, &attr, &max_dynamic));
    EXPECT_EQ(int(attr.sharedSizeBytes), pk.static_smem) << pk.name;
    if (attr.numRegs != last_registers) ++distinct_registers;
    last_registers = attr.numRegs;
    for (int threads : block_sizes)
      for (int dynamic : dynamic_sizes) {
        if (dynamic > max_dynamic) continue;
        int model_blocks = -1;
        if (threads > attr.maxThreadsPerBlock) {
          // The runtime will not launch it; the model must say that no block fits.
          const sol::model::Occupancy o =
              sol::model::occupancy(*limits_, {threads, attr.numRegs, int64_t(attr.sharedSizeBytes), dynamic});
          EXPECT_EQ(o.blocks_per_sm, 0) << pk.name << ": " << attr.numRegs << " registers, " << threads << " threads";
          continue;
        }
        ASSERT_NO_FATAL_FAILURE(compare(fn, attr, pk.name, threads, dynamic, -1, &model_blocks));
        ++compared;
      }
  }
  EXPECT_GE(distinct_registers, 6) << "the kernels should span many register counts";
  EXPECT_GE(compared, 400);
}

// The carve-out rule (occupancy.hpp): with cudaFuncAttributePreferredSharedMemoryCarveout set to P %,
// the runtime's answer must equal the model's for every kernel, block size and dynamic size.
TEST_F(OccupancyGpu, CarveoutPreferenceMatchesTheRuntimeExactly) {
  // Percentages that land on, just under and just over steps (28 % → 64 KiB, 29 % → 100 KiB on Hopper).
  const int carveouts[] = {0, 1, 3, 7, 14, 28, 29, 43, 50, 57, 71, 72, 85, 86, 99, 100};
  const int block_sizes[] = {32, 64, 128, 256, 512, 1024};
  const int dynamic_sizes[] = {0, 1, 3000, 7000, 15000, 31000, 60000, 99000, 140000, 232448};
  int compared = 0, differs_from_default = 0;
  for (const PtxKernel& pk : kernels()) {
    const void* fn = nullptr;
    cudaFuncAttributes attr{};
    int max_dynamic = 0;
    ASSERT_NO_FATAL_FAILURE(prepare(pk, &fn, &attr, &max_dynamic));
    for (int carveout : carveouts) {
      ASSERT_EQ(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout), cudaSuccess)
          << pk.name << " " << carveout << " %";
      cudaFuncAttributes now{};
      ASSERT_EQ(cudaFuncGetAttributes(&now, fn), cudaSuccess);
      EXPECT_EQ(now.preferredShmemCarveout, carveout) << pk.name << ": the attribute did not stick";
      for (int threads : block_sizes)
        for (int dynamic : dynamic_sizes) {
          if (dynamic > max_dynamic || threads > attr.maxThreadsPerBlock) continue;
          int model_blocks = -1;
          ASSERT_NO_FATAL_FAILURE(compare(fn, attr, pk.name, threads, dynamic, carveout, &model_blocks));
          const sol::model::KernelResources by_default{threads, attr.numRegs, int64_t(attr.sharedSizeBytes), dynamic};
          if (sol::model::occupancy(*limits_, by_default).blocks_per_sm != model_blocks) ++differs_from_default;
          ++compared;
        }
    }
  }
  EXPECT_GE(compared, 1000);
  // The comparison must be able to tell the rule from "ignore the carve-out": many cases must differ.
  EXPECT_GE(differs_from_default, 100);
}
#endif
