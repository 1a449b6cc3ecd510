// Host-side checks of the backward row families' registry entries (layernorm_bwd, rmsnorm_bwd,
// softmax_bwd): the byte counts the roofline divides by, and the shapes they refuse. The kernels
// themselves are checked by tests/gpu/test_registry.cpp (including a bitwise rerun inside each
// Case's check); these need no GPU.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sol/registry.hpp"

using namespace sol;

namespace {

// The variant, or a thrown error naming it (a missing entry fails the test, never crashes it).
const Variant& find(const std::string& family, const std::string& name) {
  for (const Variant& v : registry())
    if (v.family == family && v.name == name) return v;
  throw std::runtime_error("no registry entry " + family + "/" + name);
}

}  // namespace

TEST(RowsBwd, EveryFamilyHasThreeRungs) {
  if (!built_with_cuda()) GTEST_SKIP() << "registry is empty without CUDA";
  for (const char* f : {"layernorm_bwd", "rmsnorm_bwd", "softmax_bwd"})
    for (const char* n : {"v01_eager_bf16", "v02_one_read_bf16", "v03_one_read_fp32"})
      EXPECT_NO_THROW(find(f, n)) << f << "/" << n;
}

// One read: x|y and dy read, dx written (3·n·b), plus γ and the gradients (cols·b each) and the
// saved statistics (rows·4 each) — counted by hand here, not taken from the implementation.
TEST(RowsBwd, OneReadBytesAreThreeTensorPassesPlusTheSmallVectors) {
  if (!built_with_cuda()) GTEST_SKIP() << "registry is empty without CUDA";
  const Shape s = Shape::parse("rows=32768,cols=4096");
  const double n = 32768.0 * 4096.0;
  EXPECT_DOUBLE_EQ(find("layernorm_bwd", "v02_one_read_bf16").cost(s).bytes, 3 * n * 2 + 3 * 4096 * 2 + 2 * 32768 * 4);
  EXPECT_DOUBLE_EQ(find("rmsnorm_bwd", "v02_one_read_bf16").cost(s).bytes, 3 * n * 2 + 2 * 4096 * 2 + 32768 * 4);
  EXPECT_DOUBLE_EQ(find("softmax_bwd", "v02_one_read_bf16").cost(s).bytes, 3 * n * 2);
  EXPECT_DOUBLE_EQ(find("softmax_bwd", "v03_one_read_fp32").cost(s).bytes, 3 * n * 4);
  // Eager: LayerNorm 12 reads + 5 writes, RMSNorm 10 + 5, softmax 5 + 2 whole-tensor passes.
  EXPECT_DOUBLE_EQ(find("layernorm_bwd", "v01_eager_bf16").cost(s).bytes, 17 * n * 2 + 3 * 4096 * 2 + 2 * 32768 * 4);
  EXPECT_DOUBLE_EQ(find("rmsnorm_bwd", "v01_eager_bf16").cost(s).bytes, 15 * n * 2 + 2 * 4096 * 2 + 32768 * 4);
  EXPECT_DOUBLE_EQ(find("softmax_bwd", "v01_eager_bf16").cost(s).bytes, 7 * n * 2);
}

TEST(RowsBwd, RefusesShapesOutsideTheFamily) {
  if (!built_with_cuda()) GTEST_SKIP() << "registry is empty without CUDA";
  const Variant& ln = find("layernorm_bwd", "v02_one_read_bf16");
  const Variant& sm = find("softmax_bwd", "v02_one_read_bf16");
  EXPECT_EQ(ln.unsupported(Shape::parse("rows=3,cols=65536")), "");
  EXPECT_EQ(ln.unsupported(Shape::parse("rows=3,cols=152064")), "");  // past a cluster: the looped kernel
  EXPECT_EQ(ln.unsupported(Shape::parse("rows=3,cols=16777216")), "");
  EXPECT_NE(ln.unsupported(Shape::parse("rows=3,cols=16777217")), "");
  EXPECT_NE(ln.unsupported(Shape::parse("rows=3,cols=8,mask=1")), "");  // the mask is softmax's
  EXPECT_EQ(ln.unsupported(Shape::parse("rows=3,cols=8,scale=30")), "");
  EXPECT_NE(ln.unsupported(Shape::parse("rows=3,cols=8,scale=1001")), "");
  EXPECT_NE(ln.unsupported(Shape::parse("rows=3")), "");
  EXPECT_EQ(sm.unsupported(Shape::parse("rows=3,cols=8,mask=1,scale=30")), "");
  EXPECT_NE(sm.unsupported(Shape::parse("rows=3,cols=8,mask=2")), "");
}
