// `sol quant --fmt mxfp8-e4m3|mxfp8-e5m2|mxfp4-e2m1 --rule ocp|ceil --dist normal|student-t|outliers
// [--shape R,C] [--seed N] [--json]`: how much an MX quantization loses on a generated bf16
// tensor — relative L2 error, SNR, the fraction of elements clamped at the block's largest value
// and the fraction flushed to zero — rowwise (1×32 blocks), columnwise (32×1), and columnwise
// re-quantized from the rowwise fp8 values (what a trainer that kept only one copy and
// transposed it would get): the §7.2 reason training quantizes both from bf16.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/formats/mx.hpp"
#include "sol/registry.hpp"

namespace sol::cli {
namespace {

using ojson = nlohmann::ordered_json;
using namespace sol::formats;

constexpr int64_t kMaxElements = int64_t(1) << 26;  // host memory: a few float copies of the tensor

std::pair<int64_t, int64_t> parse_rc(const std::string& text) {
  const auto rc = parse_counts("--shape", text, 2, 2);
  const int64_t r = rc[0], c = rc[1];
  if (r < 1 || c < 1) bad_input("--shape " + text + " has an empty side", "give ROWS, COLS ≥ 1");
  if (r > kMaxElements / c) bad_input("--shape " + text + " has more than 2^26 elements", "use a smaller shape on the host");
  return {r, c};
}

struct Row {
  std::string name;
  MxError e;
};

ojson to_json(const Row& r) {
  ojson j;
  j["quantization"] = r.name;
  j["rel_l2"] = r.e.rel_l2;
  j["snr_db"] = std::isfinite(r.e.snr_db) ? ojson(r.e.snr_db) : ojson("inf");
  j["saturated"] = r.e.saturated;
  j["flushed"] = r.e.flushed;
  j["max_rel"] = r.e.max_rel;
  j["elements"] = r.e.elements;
  return j;
}

std::string pct(double f) { return num(f * 100, 3) + " %"; }

}  // namespace

Command add_quant(CLI::App& root, Global&) {
  struct Args {
    std::string fmt, rule, dist, shape = "2048,2048";
    uint64_t seed = 0x5eed;
    JsonOut json;
  };
  auto args = std::make_shared<Args>();
  auto* app = root.add_subcommand("quant", "MX quantization error on a generated bf16 tensor: rowwise, columnwise, and why both");
  app->add_option("--fmt", args->fmt, "mxfp8-e4m3 | mxfp8-e5m2 | mxfp4-e2m1")->required();
  app->add_option("--rule", args->rule, "scale rule: ocp (floor(log2 amax) − emax) | ceil (ceil(log2(amax/max)))")->required();
  app->add_option("--dist", args->dist, "normal | student-t (3 dof) | outliers (1 column in 64 ×100)")->required();
  app->add_option("--shape", args->shape, "ROWS,COLS of the tensor (default 2048,2048; at most 2^26 elements)");
  app->add_option("--seed", args->seed, "seed of the generated tensor");
  add_json(app, args->json, "the errors");

  return {app, [args]() -> int {
            const Format elem = parse_mx_format(args->fmt);
            const ScaleRule rule = parse_scale_rule(args->rule);
            const Dist dist = parse_dist(args->dist);
            const auto [rows, cols] = parse_rc(args->shape);
            const std::vector<float> x = generate(dist, rows, cols, args->seed);

            const MxTensor row = mx_quantize(x, rows, cols, elem, rule, MxAxis::Rowwise);
            const MxTensor col = mx_quantize(x, rows, cols, elem, rule, MxAxis::Colwise);
            const std::vector<float> row_values = mx_dequantize(row), col_values = mx_dequantize(col);
            // The rowwise fp8 values (times their scales) re-quantized in 32×1 blocks, through bf16.
            const MxTensor requant = mx_quantize(round_to_bf16(row_values), rows, cols, elem, rule, MxAxis::Colwise);
            int64_t differ = 0;
            for (size_t i = 0; i < x.size(); ++i) differ += row_values[i] != col_values[i];
            const double differ_frac = double(differ) / double(x.size());

            const std::vector<Row> table = {{"rowwise (1x32)", mx_error(x, row)},
                                            {"columnwise (32x1)", mx_error(x, col)},
                                            {"columnwise from rowwise fp8", mx_error(x, requant)}};
            const std::string title = mx_format_name(elem) + ", " + scale_rule_name(rule) + " rule, " + dist_name(dist) + " " +
                                      std::to_string(rows) + "x" + std::to_string(cols) + " bf16 tensor";
            if (args->json.on()) {
              ojson j;
              j["fmt"] = mx_format_name(elem);
              j["rule"] = scale_rule_name(rule);
              j["dist"] = dist_name(dist);
              j["rows"] = rows;
              j["cols"] = cols;
              j["seed"] = args->seed;
              j["reference"] = "the bf16 tensor";
              ojson rs = ojson::array();
              for (const Row& r : table) rs.push_back(to_json(r));
              j["results"] = rs;
              j["rowwise_columnwise_differ"] = differ_frac;
              emit_json(args->json, j);
              return 0;
            }
            Table t({"quantization", "rel L2 error", "SNR", "saturated", "flushed to 0", "max rel error"});
            for (const Row& r : table)
              t.add_row({r.name, sci(r.e.rel_l2), std::isfinite(r.e.snr_db) ? fixed(r.e.snr_db, 2) + " dB" : "exact",
                         pct(r.e.saturated), pct(r.e.flushed), sci(r.e.max_rel)});
            std::printf("%s, against bf16\n\n%s\n", title.c_str(), t.str().c_str());
            std::printf("rowwise and columnwise values differ in %s of the elements: neither is the other's\n"
                        "transpose, and re-quantizing one from the other rounds twice; training keeps both,\n"
                        "each quantized from bf16.\n",
                        pct(differ_frac).c_str());
            return 0;
          }};
}

}  // namespace sol::cli
