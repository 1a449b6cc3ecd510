// Speed of sol's systolic simulator (host only; not a test). The closed-form engine on whole
// networks (ResNet-50's convolutions, one GPT-style transformer layer) and the cycle-stepped
// engine on the two layers SCALE-Sim v2 was timed on: a 1000³ GEMM (about 73 s in SCALE-Sim)
// and a 1×4096×4096 GEMV (about 138 s), both on a 128×128 array.
//   usage: bench_systolic [--quick]      (--quick: smaller stepped runs, for a smoke test)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "sol/sim/systolic.hpp"

using namespace sol::sim;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(const std::function<void()>& fn, int repeats = 1) {
  const auto t0 = Clock::now();
  for (int i = 0; i < repeats; ++i) fn();
  return std::chrono::duration<double>(Clock::now() - t0).count() / repeats;
}

// ResNet-50's convolutions as valid convolutions (input sizes include the padding), batch 1.
std::vector<Layer> resnet50() {
  std::vector<Layer> l;
  l.push_back(Layer::conv("conv1", 230, 230, 7, 7, 3, 64, 2, 2));
  struct Stage {
    int blocks, size, in, mid, out;
  };
  const Stage stages[] = {{3, 56, 64, 64, 256}, {4, 28, 256, 128, 512}, {6, 14, 512, 256, 1024}, {3, 7, 1024, 512, 2048}};
  int s = 2;
  for (const Stage& st : stages) {
    for (int b = 0; b < st.blocks; ++b) {
      const std::string n = "res" + std::to_string(s) + char('a' + b);
      const int in = b == 0 ? st.in : st.out;
      const int stride = (b == 0 && s > 2) ? 2 : 1;
      const int insize = stride == 2 ? st.size * 2 : st.size;
      l.push_back(Layer::conv(n + "_1x1a", insize, insize, 1, 1, in, st.mid, stride, stride));
      l.push_back(Layer::conv(n + "_3x3", st.size + 2, st.size + 2, 3, 3, st.mid, st.mid, 1, 1));
      l.push_back(Layer::conv(n + "_1x1b", st.size, st.size, 1, 1, st.mid, st.out, 1, 1));
      if (b == 0) l.push_back(Layer::conv(n + "_proj", insize, insize, 1, 1, in, st.out, stride, stride));
    }
    ++s;
  }
  l.push_back(Layer::gemm("fc", 1, 1000, 2048));
  return l;
}

// One decoder layer, d = 4096, 32 heads of 128, sequence 2048, MLP 4·d.
std::vector<Layer> transformer_layer() {
  const int S = 2048, d = 4096, h = 32, dh = 128;
  std::vector<Layer> l = {Layer::gemm("qkv", S, 3 * d, d), Layer::gemm("out_proj", S, d, d),
                          Layer::gemm("mlp_up", S, 4 * d, d), Layer::gemm("mlp_down", S, d, 4 * d)};
  for (int i = 0; i < h; ++i) {
    l.push_back(Layer::gemm("scores_h" + std::to_string(i), S, S, dh));
    l.push_back(Layer::gemm("context_h" + std::to_string(i), S, dh, S));
  }
  return l;
}

ArrayConfig tpu(Dataflow df) {
  ArrayConfig c;
  c.rows = c.cols = 128;
  c.dataflow = df;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf("closed-form engine, 128x128 array, whole topologies (mean of 200 runs)\n");
  for (auto [name, layers] : {std::pair{"ResNet-50 (54 layers)", resnet50()},
                              std::pair{"transformer layer (68 GEMMs)", transformer_layer()}}) {
    for (Dataflow df : {Dataflow::ws, Dataflow::os, Dataflow::is}) {
      int64_t cycles = 0;
      const double s = seconds(
          [&] {
            cycles = 0;
            for (const Layer& l : layers) cycles += analytic(l, tpu(df), Model::scalesim).total_cycles;
          },
          200);
      std::printf("  %-30s %s  %8.3f ms  (%zu layers, %lld cycles)\n", name, to_string(df).c_str(), s * 1e3,
                  layers.size(), static_cast<long long>(cycles));
    }
  }

  std::printf("\nSCALE-Sim's DRAM replay (--compat scalesim), ResNet-50, ws, 128x128, 1 MiB SRAMs\n");
  {
    const auto layers = resnet50();
    const double s = seconds([&] {
      for (const Layer& l : layers) {
        LayerResult r = analytic(l, tpu(Dataflow::ws), Model::scalesim);
        replay_scalesim_memory(l, tpu(Dataflow::ws), r);
      }
    });
    std::printf("  %8.3f s for %zu layers\n", s, layers.size());
  }

  std::printf("\ncycle-stepped engine, 128x128 array (values checked off; on in the tests)\n");
  struct Run {
    const char* what;
    Layer layer;
    double scalesim_s;
  };
  const std::vector<Run> runs = quick ? std::vector<Run>{{"GEMM 200x200x200", Layer::gemm("g", 200, 200, 200), 0}}
                                      : std::vector<Run>{{"GEMM 1000x1000x1000", Layer::gemm("g", 1000, 1000, 1000), 73},
                                                         {"GEMV 1x4096x4096", Layer::gemm("v", 1, 4096, 4096), 138}};
  StepOptions opt;
  opt.check_values = false;
  for (const Run& run : runs)
    for (Dataflow df : {Dataflow::ws, Dataflow::os, Dataflow::is}) {
      LayerResult r;
      const double s = seconds([&] { r = stepped(run.layer, tpu(df), Model::scalesim, opt); });
      const double cells = double(r.total_cycles) * 128 * 128;
      std::printf("  %-22s %s  %7.2f s  %9lld cycles  %5.2f G cell-updates/s", run.what, to_string(df).c_str(), s,
                  static_cast<long long>(r.total_cycles), cells / s / 1e9);
      if (run.scalesim_s > 0) std::printf("  %6.0fx SCALE-Sim's %.0f s", run.scalesim_s / s, run.scalesim_s);
      std::printf("\n");
    }
  return 0;
}
