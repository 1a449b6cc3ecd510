// One registry-driven suite: every variant against its CPU reference at its headline bench shape
// and at its odd, prime and tiny test shapes, twice with fresh random inputs. A shape the
// variant does not support is skipped with its reason; a GPU below the variant's compute
// capability likewise. Plus host-side checks that every registry entry is well formed.
#include <gtest/gtest.h>

#include <set>

#include "sol/registry.hpp"
#include "tests/gpu/gpu_env.hpp"

using namespace sol;

namespace {

struct Param {
  const Variant* v = nullptr;
  Shape shape;
  bool headline = false;
  std::string label;
};
// How GoogleTest (and so each ctest entry's name) shows a parameter: its variant and shape.
void PrintTo(const Param& p, std::ostream* os) { *os << p.v->family << "/" << p.v->name << " " << p.shape.str(); }

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::vector<Param> params() {
  std::vector<Param> out;
  std::set<std::string> labels;
  for (const Variant& v : registry()) {
    std::vector<std::pair<Shape, bool>> shapes;
    if (!v.bench_shapes.empty()) shapes.push_back({v.bench_shapes.front(), true});
    for (const Shape& s : v.test_shapes) shapes.push_back({s, false});
    for (const auto& [s, headline] : shapes) {
      std::string label = sanitize(v.family) + "__" + sanitize(v.name) + "__" + sanitize(s.str());
      if (!labels.insert(label).second) continue;  // the headline shape is also a test shape
      out.push_back({&v, s, headline, label});
    }
  }
  return out;
}

class RegistryVariant : public ::testing::TestWithParam<Param> {};

}  // namespace

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegistryVariant);

TEST_P(RegistryVariant, MatchesReference) {
  SOL_REQUIRE_GPU_OR_SKIP();
#ifdef SOL_WITH_CUDA
  const Param& p = GetParam();
  if (std::string why = p.v->unsupported ? p.v->unsupported(p.shape) : ""; !why.empty())
    GTEST_SKIP() << p.v->family << "/" << p.v->name << " does not support " << p.shape.str() << ": " << why;
  static const int cc = bench::device_info().compute_capability;
  if (cc < p.v->min_cc) GTEST_SKIP() << "needs compute capability " << p.v->min_cc << ", this GPU has " << cc;
  for (uint64_t seed : {0x1234ull, 0xBEEFull}) {
    const CheckResult c = bench::verify(*p.v, p.shape, seed);
    EXPECT_EQ(c.unwritten, 0) << "elements left unwritten; " << c.detail;
    EXPECT_EQ(c.nonfinite, 0) << "non-finite outputs; " << c.detail;
    EXPECT_LE(c.rel_l2, p.v->tol.rel_l2) << "tolerance: " << p.v->tol.why << "; " << c.detail;
    EXPECT_TRUE(c.ok) << c.detail;
  }
  if (p.shape.get("det", 0)) {  // deterministic mode: the same inputs give the same output bits
    const auto [first, second] = bench::verify_twice(*p.v, p.shape, 0x5EED);
    EXPECT_NE(first.output_digest, 0u) << "the Case computes no output digest";
    EXPECT_EQ(first.output_digest, second.output_digest) << "det=1 gave different output bits on the same inputs";
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Registry, RegistryVariant, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) { return i.param.label; });

// These need no GPU: the registry entries themselves.
TEST(Registry, EntriesAreWellFormed) {
  if (registry().empty()) GTEST_SKIP() << "the registry is empty (built without CUDA)";
  std::set<std::string> names;
  for (const Variant& v : registry()) {
    const std::string id = v.family + "/" + v.name;
    SCOPED_TRACE(id);
    EXPECT_FALSE(v.family.empty());
    EXPECT_FALSE(v.name.empty());
    EXPECT_TRUE(names.insert(id).second) << "duplicate variant";
    EXPECT_FALSE(v.technique.empty());
    EXPECT_GE(v.min_cc, 50);
    EXPECT_TRUE(v.unsupported && v.cost);
    EXPECT_EQ(bool(v.make), built_with_cuda()) << "a Case factory exactly in a CUDA build";
    EXPECT_FALSE(v.bench_shapes.empty()) << "no headline shape";
    EXPECT_FALSE(v.test_shapes.empty()) << "no test shapes";
    EXPECT_GE(v.tol.rel_l2, 0);
    EXPECT_FALSE(v.tol.why.empty()) << "a tolerance states why";
    if (v.is_peer()) { EXPECT_EQ(v.version, 0); }
    for (const Shape& s : v.bench_shapes) {
      ASSERT_TRUE(v.unsupported);
      EXPECT_EQ(v.unsupported(s), "") << "bench shape " << s.str() << " is unsupported";
      const model::Cost c = v.cost(s);
      EXPECT_GT(c.bytes, 0) << s.str();
      EXPECT_GE(c.flops, 0) << s.str();
    }
  }
}

TEST(Registry, VersionsClimbWithinAFamily) {
  std::string family;
  int last = -1;
  for (const Variant& v : registry()) {
    if (v.family != family) {
      family = v.family;
      last = -1;
    }
    EXPECT_GE(v.version, last) << v.family << "/" << v.name << ": the registry lists versions in order";
    last = v.version;
  }
}

TEST(Registry, UnsupportedShapesGiveAReason) {
  // A shape with no dimensions the family knows must be refused with a reason, never launched.
  for (const Variant& v : registry()) {
    ASSERT_TRUE(v.unsupported);
    EXPECT_NE(v.unsupported(Shape::parse("no_such_dimension=3")), "") << v.family << "/" << v.name;
  }
}
