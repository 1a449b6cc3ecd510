// `sol probe`: this GPU's ceilings — copy bandwidth (a 16-byte-load kernel and cudaMemcpy), L2
// bandwidth, matrix throughput per dtype (cuBLASLt), fp32 FMA, launch overhead — against the
// datasheet row the device matches, and a measured profile usable anywhere as `--gpu measured`.
#include <iostream>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#ifdef SOL_WITH_CUDA
#include "bench/harness.hpp"
#endif

namespace sol::cli {

Command add_probe(CLI::App& root, Global&) {
  struct Opts {
    bool quick = false, no_save = false;
    std::string gpu, profile;
    int device = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* app = root.add_subcommand("probe", "measure this GPU's ceilings and save them as the profile `--gpu measured`");
  app->add_flag("--quick", o->quick, "copy bandwidth and launch overhead only (saves nothing)");
  app->add_flag("--no-save", o->no_save, "do not write the measured profile");
  app->add_option("--gpu", o->gpu, "database row to compare with and fill the profile from (default: the matching row)");
  add_device(app, o->device);
  app->add_option("--profile", o->profile, "where to write the profile (default: $SOL_PROFILE or ~/.cache/sol/measured.json)");
  return {app, [o]() -> int {
#ifdef SOL_WITH_CUDA
            bench::select_device(o->device);
            bench::ProbeOptions po;
            po.quick = o->quick;
            po.save = !o->no_save;
            po.gpu = o->gpu;
            po.profile_path = o->profile;
            const bench::ProbeResult p = bench::probe(po);
            const hw::HwSpec* row = p.row.empty() ? nullptr : &hw::find(p.row);
            std::cout << bench::probe_table(p, row);
            return 0;
#else
            (void)o;
            failure("this sol was built without CUDA, so it cannot probe a GPU", "install the CUDA toolkit and rebuild");
#endif
          }};
}

}  // namespace sol::cli
