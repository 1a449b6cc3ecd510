#pragma once
// The report: the model's floors for the lecture's operations, and — when measurements exist —
// every kernel on the roofline, each family's ladder and sweeps. Rendered as a terminal table, a
// JSON document and one self-contained HTML page with SVG charts. Host-only: it renders the
// committed bench/results on any machine.
#include <optional>
#include <string>
#include <vector>

#include "sol/hw/spec.hpp"
#include "sol/model/roofline.hpp"
#include "sol/results.hpp"

namespace sol::report {

struct ModelRow {
  std::string name;      // "matmul 4096³"
  std::string section;   // lecture section, "§6"
  model::Cost cost;
  model::Estimate est;
};

// The lecture's worked operations (§6, §8, §10, §11) evaluated on `hw`.
std::vector<ModelRow> lecture_operations(const hw::HwSpec& hw);

struct Input {
  const hw::HwSpec* hw = nullptr;       // the chip the model rows are for
  std::vector<ModelRow> model;
  std::vector<results::File> measured;  // empty: a model-only report
  std::string measured_note;            // why nothing was measured, or where results came from
  std::string created;                  // ISO-8601 UTC
  // The ceilings `sol probe` measured on the results' GPU (matrix rates), when known: the GEMM
  // sweep predicts on them as well as on the datasheet.
  std::optional<hw::HwSpec> measured_profile;
  // The checkpointing planner's GPU proof (`sol checkpoint --measure`) as Markdown
  // (model::measurement_markdown), when the results folder holds checkpoint/measured.json.
  std::string checkpoint_markdown;
  // The model's predictions against the results (sol validate): terminal text and Markdown.
  std::string validation_text, validation_markdown;
};

std::string text(const Input& in);   // terminal tables
std::string json(const Input& in);   // machine-readable
std::string html(const Input& in);   // one self-contained page with inline SVG

// docs/: one Markdown page per family (the ladder, the numbers, the sweep) and the README's
// headline table, generated from results files — never pasted by hand.
std::string family_markdown(const results::File& f, const hw::HwSpec& hw);
std::string headline_markdown(const std::vector<results::File>& files);
// One run at the model shape set (bench/results/<gpu>/model-shapes/, sol/model/model_shapes.hpp):
// a table of shape × variant medians, each shape's fastest sol rung and the dispatcher against
// its fastest peer, and how often each wins. source: the file's path, named in the block.
std::string model_shapes_markdown(const results::File& f, const std::string& source);
// Replaces the text between "<!-- sol:BEGIN name -->" and "<!-- sol:END name -->" in `doc`;
// throws sol::Error if the markers are missing.
std::string replace_block(const std::string& doc, const std::string& name, const std::string& body);

// The GEMM size sweep (family "gemm_sweep", include/sol/sweep.hpp): per GEMM family TFLOP/s against
// N for each variant with the shape model's prediction, the model's error for sol's rung and the
// cliffs named with the model's terms. is_sweep files are drawn by these, not as a ladder.
// `measured` (optional): a profile `sol probe` saved on that GPU; the model is then also evaluated
// on its measured matrix rate plus the run's launch overhead, and its error reported.
bool is_sweep(const results::File& f);
std::string sweep_chart(const results::File& f, const std::string& family, const hw::HwSpec& hw,
                        const hw::HwSpec* measured = nullptr);  // "" if no points
std::string sweep_html(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured = nullptr);
// The body of docs/gemm-sweep.md's block.
std::string sweep_markdown(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured = nullptr);
std::string sweep_text(const results::File& f, const hw::HwSpec& hw, const hw::HwSpec* measured = nullptr);
// The profile `sol probe` saved beside a results folder (<dir>/probe/measured-profile.json), if any.
std::optional<hw::HwSpec> measured_profile_beside(const std::string& results_dir);

}  // namespace sol::report
