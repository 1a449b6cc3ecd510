// The hardware database against the lecture's numbers and against invariants every row must
// keep: peaks equal units × rate × clock, matrix ≥ vector, ridge = peak / bandwidth, levels
// fastest first ending in HBM, a source for every row and peak.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "sol/core/error.hpp"
#include "sol/hw/spec.hpp"

using namespace sol;
using sol::hw::Unit;

namespace {

double bf16(const char* name) { return hw::find(name).peak(DType::bf16, Unit::Matrix).flops_per_s; }

template <class F>
Error catch_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no sol::Error thrown";
  return Error(Error::Kind::Failure, "none");
}

}  // namespace

// ---- the lecture's numbers ----------------------------------------------------------------------

TEST(HwLecture, H100Bf16Is989AtThe1830MHzClock) {
  const hw::Peak& p = hw::find("h100").peak(DType::bf16, Unit::Matrix);
  EXPECT_NEAR(p.flops_per_s, 989.4e12, 0.5e12);
  EXPECT_DOUBLE_EQ(p.clock_hz, 1.83e9);
  EXPECT_EQ(p.units, 528);
  // Multiplying by the 1980 MHz boost clock would give 1070 TFLOP/s: the classic mistake.
  EXPECT_LT(p.flops_per_s, 1000e12);
  EXPECT_LT(p.clock_hz, hw::find("h100").boost_clock_hz);
}

TEST(HwLecture, A100Bf16Is312) {
  const hw::Peak& p = hw::find("a100").peak(DType::bf16, Unit::Matrix);
  EXPECT_NEAR(p.flops_per_s, 312e12, 0.5e12);
  EXPECT_EQ(p.units, 432);
  EXPECT_DOUBLE_EQ(p.clock_hz, 1.41e9);
}

TEST(HwLecture, Fp32VectorPeaksUseTheBoostClock) {
  const hw::Peak& h = hw::find("h100").peak(DType::f32, Unit::Vector);
  EXPECT_NEAR(h.flops_per_s, 67e12, 0.67e12);  // 132 SM × 128 lanes × 2 × 1.98 GHz
  EXPECT_DOUBLE_EQ(h.clock_hz, 1.98e9);
  EXPECT_NEAR(hw::find("a100").peak(DType::f32, Unit::Vector).flops_per_s, 19.5e12, 0.2e12);
}

TEST(HwLecture, RidgePoints) {
  EXPECT_NEAR(hw::find("h100").ridge(DType::bf16, Unit::Matrix), 295.0, 1.0);   // 989e12 / 3.35e12
  EXPECT_NEAR(hw::find("a100").ridge(DType::bf16, Unit::Matrix), 200.6, 0.3);   // 312e12 / 1555e9
  EXPECT_NEAR(hw::find("h200").ridge(DType::bf16, Unit::Matrix), 206.0, 1.0);   // 989e12 / 4.8e12
  EXPECT_NEAR(hw::find("tpu-v5e").ridge(DType::bf16, Unit::Matrix), 240.0, 5.0);  // scaling book
  // The lecture: an A100 bf16 square matmul (I = N/3) is compute bound from N ≈ 602.
  EXPECT_NEAR(3 * hw::find("a100").ridge(DType::bf16, Unit::Matrix), 602, 1.0);
}

TEST(HwLecture, ChipAnatomy) {
  const auto& a = hw::find("a100");
  const auto& h = hw::find("h100");
  EXPECT_EQ(a.compute_units, 108);
  EXPECT_EQ(a.matrix_units, 432);
  EXPECT_EQ(h.compute_units, 132);
  EXPECT_EQ(h.matrix_units, 528);
  // 65536 registers × 4 B = 256 KB per SM; the whole chip ≈ 27 MB (A100) and ≈ 32 MB (H100).
  EXPECT_EQ(a.register_bytes_per_unit, a.limits.registers_per_sm * 4.0);
  EXPECT_NEAR(a.levels.front().capacity_bytes / 1e6, 27.0 * 1.048576, 27.0 * 0.1);
  EXPECT_NEAR(h.levels.front().capacity_bytes / 1e6, 32.0 * 1.048576, 32.0 * 0.1);
  EXPECT_EQ(a.limits.max_warps_per_sm, 64);
  EXPECT_EQ(a.limits.max_registers_per_thread, 255);
  // The lecture's occupancy example: 64 registers per thread leaves 1024 threads = 32 warps = 50 %.
  const double warps = a.limits.registers_per_sm / 64.0 / a.limits.warp_size;
  EXPECT_DOUBLE_EQ(warps / a.limits.max_warps_per_sm, 0.5);
  // NVLink on H100: 900 GB/s both ways.
  EXPECT_NEAR(2 * h.chip_link.bytes_per_s, 900e9, 1e9);
}

TEST(HwLecture, FlashAttentionPyramidOnA100) {
  // "SRAM 20 MB @ 19 TB/s, HBM 40 GB @ 1.5 TB/s" (FlashAttention paper, A100 40 GB).
  const auto& a = hw::find("a100");
  auto level = [&](const std::string& n) {
    auto it = std::find_if(a.levels.begin(), a.levels.end(), [&](const hw::MemLevel& m) { return m.name == n; });
    EXPECT_NE(it, a.levels.end()) << n;
    return *it;
  };
  EXPECT_NEAR(level("smem/L1").bytes_per_s, 19e12, 19e12 * 0.05);
  EXPECT_NEAR(level("smem/L1").capacity_bytes, 20e6, 20e6 * 0.1);
  EXPECT_NEAR(level("HBM").bytes_per_s, 1.5e12, 1.5e12 * 0.05);
  EXPECT_NEAR(level("HBM").capacity_bytes, 40e9, 40e9 * 0.1);
}

TEST(HwLecture, TpuPeaksPerChip) {
  EXPECT_NEAR(bf16("tpu-v4"), 275e12, 275e12 * 0.005);
  EXPECT_NEAR(bf16("tpu-v5e"), 197e12, 197e12 * 0.005);
  EXPECT_NEAR(bf16("tpu-v5p"), 459e12, 459e12 * 0.005);
  for (const char* n : {"tpu-v5e", "tpu-v5p"})
    EXPECT_DOUBLE_EQ(hw::find(n).peak(DType::int8, Unit::Matrix).flops_per_s, 2 * bf16(n)) << n;
  EXPECT_DOUBLE_EQ(hw::find("tpu-v4").peak(DType::int8, Unit::Matrix).flops_per_s, bf16("tpu-v4"));
  const auto& v4 = hw::find("tpu-v4").peak(DType::bf16, Unit::Matrix);
  EXPECT_EQ(v4.units * v4.flops_per_clock_per_unit, 2 * 4 * 128 * 128 * 2);  // 2 TCs × 4 MXU × 128² × 2
  EXPECT_DOUBLE_EQ(v4.clock_hz, 1.05e9);
  EXPECT_EQ(hw::find("tpu-v5e").levels.front().name, "VMEM");
  EXPECT_DOUBLE_EQ(hw::find("tpu-v5e").levels.front().capacity_bytes, 128.0 * 1024 * 1024);  // "VMEM 128 MB"
}

TEST(HwLecture, H200IsH100ComputeWithMoreFasterHbm) {
  const auto& h100 = hw::find("h100");
  const auto& h200 = hw::find("h200");
  EXPECT_DOUBLE_EQ(bf16("h200"), bf16("h100"));
  EXPECT_GT(h200.hbm_bytes, h100.hbm_bytes);
  EXPECT_DOUBLE_EQ(h200.hbm_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes_per_s, 3.35e12);
}

// ---- invariants over every row ------------------------------------------------------------------

TEST(HwDatabase, HoldsTheRowsTheIssueNames) {
  std::set<std::string> names;
  for (const auto& s : hw::builtin()) names.insert(s.name);
  for (const char* n : {"a100", "a100-80gb", "h100", "h200", "b200", "tpu-v4", "tpu-v5e", "tpu-v5p"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(names.size(), hw::builtin().size()) << "duplicate names";
}

TEST(HwDatabase, EveryRowValidates) {
  for (const auto& s : hw::builtin()) EXPECT_NO_THROW(hw::validate(s, "builtin")) << s.name;
}

TEST(HwDatabase, EveryPeakIsUnitsTimesRateTimesClock) {
  for (const auto& s : hw::builtin())
    for (const auto* peaks : {&s.matrix_peaks, &s.vector_peaks})
      for (const auto& [k, p] : *peaks) {
        const double product = p.units * p.flops_per_clock_per_unit * p.clock_hz;
        EXPECT_NEAR(p.flops_per_s, product, 0.01 * product) << s.name << " " << k;
        EXPECT_GT(p.units, 0) << s.name << " " << k;
        EXPECT_FALSE(p.unit_label.empty()) << s.name << " " << k;
        EXPECT_FALSE(p.source.empty()) << s.name << " " << k;
        // No vendor figure is computed above the chip's boost clock.
        EXPECT_LE(p.clock_hz, s.boost_clock_hz * 1.0001) << s.name << " " << k;
        // The derivation line names the factors.
        const std::string d = p.derivation();
        EXPECT_NE(d.find(" × "), std::string::npos) << d;
        EXPECT_NE(d.find("FLOP/s"), std::string::npos) << d;
      }
}

TEST(HwDatabase, MatrixPeakAtLeastVectorPeakPerDtype) {
  for (const auto& s : hw::builtin())
    for (const auto& [k, v] : s.vector_peaks) {
      auto m = s.matrix_peaks.find(k);
      if (m != s.matrix_peaks.end()) {
        EXPECT_GE(m->second.flops_per_s, v.flops_per_s) << s.name << " " << k;
      }
    }
}

TEST(HwDatabase, RidgeIsPeakOverHbmBandwidth) {
  for (const auto& s : hw::builtin())
    for (DType t : all_dtypes())
      for (Unit u : {Unit::Matrix, Unit::Vector})
        if (s.has(t, u)) {
          EXPECT_DOUBLE_EQ(s.ridge(t, u), s.peak(t, u).flops_per_s / s.hbm_bytes_per_s) << s.name;
        }
}

TEST(HwDatabase, SourcesEverywhere) {
  for (const auto& s : hw::builtin()) {
    EXPECT_FALSE(s.sources.empty()) << s.name;
    EXPECT_FALSE(s.hbm_source.empty()) << s.name;
    for (const auto& m : s.levels) {
      EXPECT_FALSE(m.derivation.empty()) << s.name << " " << m.name;
      EXPECT_FALSE(m.source.empty()) << s.name << " " << m.name;
    }
    for (const auto* l : {&s.host_link, &s.chip_link}) {
      EXPECT_GT(l->bytes_per_s, 0) << s.name << " " << l->name;
      EXPECT_FALSE(l->source.empty()) << s.name << " " << l->name;
    }
  }
}

TEST(HwDatabase, LevelsFastestFirstEndingInHbm) {
  for (const auto& s : hw::builtin()) {
    ASSERT_FALSE(s.levels.empty()) << s.name;
    EXPECT_EQ(s.levels.back().name, "HBM") << s.name;
    EXPECT_DOUBLE_EQ(s.levels.back().bytes_per_s, s.hbm_bytes_per_s) << s.name;
    EXPECT_DOUBLE_EQ(s.levels.back().capacity_bytes, s.hbm_bytes) << s.name;
    for (size_t i = 1; i < s.levels.size(); ++i)
      EXPECT_LT(s.levels[i].bytes_per_s, s.levels[i - 1].bytes_per_s) << s.name << " " << s.levels[i].name;
  }
}

TEST(HwDatabase, GpuAndTpuShapes) {
  for (const auto& s : hw::builtin()) {
    if (s.vendor == "nvidia") {
      std::vector<std::string> names;
      for (const auto& m : s.levels) names.push_back(m.name);
      EXPECT_EQ(names, (std::vector<std::string>{"registers", "smem/L1", "L2", "HBM"})) << s.name;
      EXPECT_GT(s.compute_capability, 0) << s.name;
      EXPECT_EQ(s.matrix_units, 4 * s.compute_units) << s.name;
      EXPECT_GT(s.limits.max_warps_per_sm, 0) << s.name;
      EXPECT_GT(s.limits.register_alloc_unit, 0) << s.name;
      EXPECT_GT(s.limits.shared_alloc_unit, 0) << s.name;
      EXPECT_LE(s.limits.shared_bytes_per_sm, s.shared_bytes_per_unit) << s.name;
      EXPECT_EQ(s.limits.registers_per_sm * 4.0, s.register_bytes_per_unit) << s.name;
      EXPECT_DOUBLE_EQ(s.levels[2].capacity_bytes, s.l2_bytes) << s.name;
    } else {
      EXPECT_EQ(s.vendor, "google") << s.name;
      EXPECT_EQ(s.compute_capability, 0) << s.name;
      EXPECT_EQ(s.limits.max_warps_per_sm, 0) << s.name;
      EXPECT_EQ(s.limits.registers_per_sm, 0) << s.name;
      EXPECT_EQ(s.limits.shared_bytes_per_sm, 0) << s.name;
      EXPECT_EQ(s.levels.size(), 2u) << s.name;
      EXPECT_EQ(s.matrix_unit_label, "MXUs") << s.name;
    }
  }
}

// ---- lookups ------------------------------------------------------------------------------------

TEST(HwFind, CaseInsensitiveAndStable) {
  EXPECT_EQ(&hw::find("H100"), &hw::find("h100"));
  EXPECT_EQ(hw::find("TPU-V5E").name, "tpu-v5e");
  for (const auto& s : hw::builtin()) {
    EXPECT_EQ(&hw::find(s.name), &s);
    for (char c : s.name) EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << s.name;
  }
}

TEST(HwFind, UnknownNameListsTheValidOnes) {
  Error e = catch_error([] { hw::find("h1000"); });
  EXPECT_EQ(e.kind(), Error::Kind::BadInput);
  EXPECT_NE(e.line().find("h1000"), std::string::npos) << e.line();
  for (const auto& s : hw::builtin()) EXPECT_NE(e.line().find(s.name), std::string::npos) << e.line();
}

TEST(HwFind, MissingPeakNamesWhatTheChipHas) {
  const auto& a100 = hw::find("a100");
  EXPECT_FALSE(a100.has(DType::fp8_e4m3, Unit::Matrix));  // Ampere has no fp8 tensor cores
  EXPECT_TRUE(hw::find("h100").has(DType::fp8_e5m2, Unit::Matrix));
  Error e = catch_error([&] { a100.peak(DType::fp8_e4m3, Unit::Matrix); });
  EXPECT_EQ(e.kind(), Error::Kind::BadInput);
  EXPECT_NE(e.line().find("fp8"), std::string::npos) << e.line();
  EXPECT_NE(e.line().find("bf16"), std::string::npos) << e.line();
  EXPECT_THROW(a100.ridge(DType::fp8_e4m3, Unit::Matrix), Error);
  EXPECT_THROW(hw::find("tpu-v5e").peak(DType::f64, Unit::Vector), Error);
}
