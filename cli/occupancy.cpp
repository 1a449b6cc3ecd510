// `sol occupancy --gpu NAME --threads T --regs R [--smem BYTES] [--dynamic-smem BYTES]
// [--carveout PERCENT] [--json]`: the lecture's §12 step 2. Resident blocks and warps per SM, the
// occupancy, which resource limits it, the shared-memory carve-out the driver would configure, and
// one line of arithmetic per limit; a block that cannot be resident says so.
#include <nlohmann/json.hpp>

#include <climits>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "sol/core/format.hpp"
#include "sol/hw/spec.hpp"
#include "sol/model/occupancy.hpp"

namespace sol::cli {
namespace {

struct Args {
  std::string gpu = "h100";
  int threads = 0, regs = 0;
  int64_t smem = 0, dynamic_smem = 0;
  int carveout = -1;
  JsonOut json;
};

int run(const Args& a) {
  const hw::HwSpec& spec = hw::find(a.gpu);
  const model::KernelResources k{a.threads, a.regs, a.smem, a.dynamic_smem, a.carveout};
  const model::Occupancy o = model::occupancy(spec.limits, k);
  const bool fits = o.blocks_per_sm > 0;
  if (a.json.on()) {
    emit_json(a.json, nlohmann::ordered_json::parse(model::occupancy_json(spec, k, o)));
    return 0;
  }
  std::printf("%s: %d threads/block, %d registers/thread, %s shared/block (%s static + %s dynamic)\n",
              spec.full_name.c_str(), a.threads, a.regs, bytes_iec(double(a.smem + a.dynamic_smem)).c_str(),
              bytes_iec(double(a.smem)).c_str(), bytes_iec(double(a.dynamic_smem)).c_str());
  for (const auto& line : o.derivation) std::printf("  %s\n", line.c_str());
  if (!fits) {
    std::printf("does not fit: not one block of this kernel can be resident on an SM (limited by %s)\n",
                model::limiter_name(o.limiter).c_str());
    return 0;
  }
  std::printf("%d blocks/SM, %d of %d warps → occupancy %s %%, limited by %s\n", o.blocks_per_sm, o.warps_per_sm,
              spec.limits.max_warps_per_sm, fixed(100 * o.occupancy, 1).c_str(), model::limiter_name(o.limiter).c_str());
  return 0;
}

}  // namespace

Command add_occupancy(CLI::App& root, Global&) {
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("occupancy", "resident blocks and warps per SM for a kernel's resources (§12)");
  app->add_option("--gpu", args->gpu, "database name or a row from --hw-file (default h100)");
  add_size(app, "--threads", args->threads, "threads per block")->required();
  add_size(app, "--regs", args->regs, "registers per thread (as ptxas -v or cudaFuncGetAttributes reports)")->required();
  add_size(app, "--smem", args->smem, "static shared memory per block (default 0), e.g. 48KiB", true);
  add_size(app, "--dynamic-smem", args->dynamic_smem, "dynamic shared memory per block (default 0)", true);
  app->add_option("--carveout", args->carveout,
                  "preferred shared-memory carve-out, percent of the maximum (0..100) as "
                  "cudaFuncAttributePreferredSharedMemoryCarveout takes; -1 (default): the driver's choice");
  add_json(app, args->json, "the occupancy");
  return {app, [args]() { return run(*args); }};
}

}  // namespace sol::cli
