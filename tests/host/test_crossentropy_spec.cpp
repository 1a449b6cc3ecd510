// The crossentropy family without a GPU: the CPU reference against closed forms, the registry's
// shape rules (one clear reason per refusal) and cost, and the softmax rungs' long-row shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sol/core/error.hpp"
#include "sol/ref/rows.hpp"
#include "sol/registry.hpp"

using namespace sol;

namespace {

const Variant& variant(const std::string& family, const std::string& name) {
  for (const Variant& v : registry())
    if (v.family == family && v.name == name) return v;
  throw std::runtime_error(family + "/" + name + " is not in the registry");
}

TEST(CrossEntropyRef, ClosedForms) {
  const double one[] = {3.5};
  EXPECT_DOUBLE_EQ(ref::cross_entropy_row(one, 1, 0, 0.0).loss, 0.0);  // V = 1: p = 1
  EXPECT_NEAR(ref::cross_entropy_row(one, 1, 0, 0.3).loss, 0.0, 1e-15);
  const double flat[] = {2, 2, 2};
  EXPECT_NEAR(ref::cross_entropy_row(flat, 3, 1, 0.0).loss, std::log(3.0), 1e-15);
  const double x[] = {1, -2, 0.5, 4};
  const ref::CrossEntropyRow r = ref::cross_entropy_row(x, 4, 2, 0.0);
  EXPECT_NEAR(r.loss, r.lse - 0.5, 1e-15);
  // Full smoothing: loss = lse − mean(x); the gradient of every row sums to 0.
  const ref::CrossEntropyRow s = ref::cross_entropy_row(x, 4, 2, 1.0);
  EXPECT_NEAR(s.loss, s.lse - (1 - 2 + 0.5 + 4) / 4, 1e-15);
  for (double eps : {0.0, 0.1, 1.0}) {
    const ref::CrossEntropyRow q = ref::cross_entropy_row(x, 4, 3, eps);
    double sum = 0;
    for (int c = 0; c < 4; ++c) sum += ref::cross_entropy_dlogit(x[c], c, 4, 3, eps, q);
    EXPECT_NEAR(sum, 0.0, 1e-15) << eps;
  }
  EXPECT_THROW(ref::cross_entropy_row(x, 4, 4, 0.0), Error);
  EXPECT_THROW(ref::cross_entropy_row(x, 4, -1, 0.0), Error);
}

TEST(CrossEntropySpec, ShapeRulesGiveOneReason) {
  const Variant& passes = variant("crossentropy", "v01_passes_bf16");
  const Variant& one = variant("crossentropy", "v02_one_read_bf16");
  const Variant& fp32 = variant("crossentropy", "v03_one_read_fp32");
  EXPECT_NE(passes.unsupported(Shape::parse("rows=0,vocab=5")).find("rows"), std::string::npos);
  EXPECT_NE(passes.unsupported(Shape::parse("rows=2,cols=5")), "");
  EXPECT_NE(passes.unsupported(Shape::parse("rows=2,vocab=5,smooth=1001")).find("smooth"), std::string::npos);
  EXPECT_EQ(passes.unsupported(Shape::parse("rows=2,vocab=786433")), "");
  EXPECT_EQ(one.unsupported(Shape::parse("rows=2,vocab=786432")), "");  // 8 × 192 KiB of bf16
  EXPECT_NE(one.unsupported(Shape::parse("rows=2,vocab=786433")).find("786432"), std::string::npos);
  EXPECT_EQ(fp32.unsupported(Shape::parse("rows=2,vocab=262145")), "");
  EXPECT_NE(fp32.unsupported(Shape::parse("rows=2,vocab=393217")).find("393216"), std::string::npos);
  for (const Variant* v : {&passes, &one, &fp32})
    for (const Shape& s : v->test_shapes)
      if (s.get("vocab", 0) <= 262145) {
        EXPECT_EQ(v->unsupported(s), "") << v->name << " " << s.str();
      }
}

TEST(CrossEntropySpec, CostCountsOneReadOrThree) {
  const Shape s = Shape::parse("rows=4096,vocab=151936");
  const double n = 4096.0 * 151936;
  EXPECT_DOUBLE_EQ(variant("crossentropy", "v02_one_read_bf16").cost(s).bytes, 2 * n * 2 + 4096.0 * 12);
  EXPECT_DOUBLE_EQ(variant("crossentropy", "v01_passes_bf16").cost(s).bytes, 4 * n * 2 + 4096.0 * 12);
  EXPECT_DOUBLE_EQ(variant("crossentropy", "v03_one_read_fp32").cost(Shape::parse("rows=4,vocab=10,i32=1")).bytes,
                   2 * 40.0 * 4 + 4 * 8.0);
  EXPECT_DOUBLE_EQ(variant("crossentropy", "v02_one_read_bf16").cost(s).flops, 6 * n);
}

TEST(SoftmaxSpec, TheClusterRungsRunTheVocabularyShapes) {
  for (const char* name : {"v05_cluster_bf16", "v06_cluster_fp32", "dispatch", "v02_online_bf16"}) {
    const Variant& v = variant("softmax", name);
    bool long_bench = false, long_test = false;
    for (const Shape& s : v.bench_shapes) long_bench = long_bench || s.at("cols") == 262144;
    for (const Shape& s : v.test_shapes) long_test = long_test || s.at("cols") == 262145;
    EXPECT_TRUE(long_bench) << name;
    EXPECT_TRUE(long_test) << name;
  }
}

}  // namespace
