// Results as CSV (for spreadsheets and scripts) and Markdown (for pull requests and notes): the
// same records as the terminal table, every figure derived from the record as there.
#include <cstdio>

#include "bench/harness.hpp"
#include "sol/core/format.hpp"

namespace sol::bench {

namespace {

// Full precision for machines; an empty field for "not measured".
std::string number(double v) {
  if (v == 0) return "0";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}
std::string positive(double v) { return v > 0 ? number(v) : ""; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string status(const results::Record& r) {
  if (!r.skipped.empty()) return "skipped";
  return r.verified ? "ok" : "invalid";
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else o += c;
  }
  return o;
}

std::string md_row(const std::vector<std::string>& cells) {
  std::string o = "|";
  for (const auto& c : cells) o.append(1, ' ').append(md_cell(c)).append(" |");
  return o + "\n";
}

std::string fraction_text(double f) { return f > 0 ? num(100 * f, 3) + " %" : "—"; }
std::string times(double x) { return x > 0 ? num(x, 3) + "×" : "—"; }

}  // namespace

std::string records_csv(const std::vector<results::File>& files) {
  const std::vector<std::string> header = {
      "family", "variant", "version", "dtype", "shape", "status", "median_s", "min_s", "max_s", "spread",
      "samples", "flops", "bytes", "achieved_flops_per_s", "achieved_bytes_per_s", "floor_s",
      "floor_measured_s", "floor_fraction", "floor_measured_fraction", "bound", "speedup_over_previous",
      "speedup_over_peer", "rel_l2", "tolerance", "timing", "throttled", "skipped", "note"};
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& f : files)
    for (const auto& r : f.records) {
      const bool timed = r.skipped.empty() && r.median_s > 0;
      const std::vector<std::string> cells = {
          r.family, r.variant, std::to_string(r.version), r.dtype, r.shape, status(r),
          timed ? number(r.median_s) : "", timed ? number(r.min_s) : "", timed ? number(r.max_s) : "",
          timed ? number(r.spread) : "", timed ? std::to_string(r.samples) : "", positive(r.flops),
          positive(r.bytes), timed ? positive(r.achieved_flops_per_s) : "", timed ? positive(r.achieved_bytes_per_s) : "",
          positive(r.floor_s), positive(r.floor_measured_s), timed ? positive(r.floor_s / r.median_s) : "",
          timed ? positive(r.floor_measured_s / r.median_s) : "", r.bound, positive(speedup_over_previous(f, r)),
          positive(speedup_over_peer(f, r)), timed ? number(r.rel_l2) : "", positive(r.tolerance), r.timing,
          r.throttled ? "1" : "0", r.skipped, r.note};
      for (size_t i = 0; i < cells.size(); ++i) {
        if (i) out += ',';
        out += csv_field(cells[i]);
      }
      out += "\n";
    }
  return out;
}

std::string records_markdown(const std::vector<results::File>& files) {
  std::string out;
  for (const auto& f : files) {
    out += "### " + f.family + " on " + (f.device.name.empty() ? "?" : f.device.name) + "\n\n";
    const std::vector<std::string> header = {"variant", "shape", "time", "spread", "samples", "FLOP/s", "B/s",
                                             "% of floor", "% (meas.)", "bound", "× prev", "× peer"};
    out += md_row(header);
    std::string rule = "|";
    for (size_t i = 0; i < header.size(); ++i) rule += i < 2 ? " --- |" : " ---: |";
    out += rule + "\n";
    std::vector<std::string> notes;
    for (const auto& r : f.records) {
      const std::string code = "`" + r.shape + "`";
      if (r.skipped.empty() && r.verified) {
        out += md_row({r.variant, code, si(r.median_s, "s", 3), "±" + num(50 * r.spread, 2) + " %",
                       std::to_string(r.samples), r.flops > 0 ? si(r.achieved_flops_per_s, "FLOP/s", 3) : "—",
                       si(r.achieved_bytes_per_s, "B/s", 3), fraction_text(r.floor_s / r.median_s),
                       fraction_text(r.floor_measured_s / r.median_s), r.bound.empty() ? "—" : r.bound,
                       times(speedup_over_previous(f, r)), times(speedup_over_peer(f, r))});
        continue;
      }
      out += md_row({r.variant, code, status(r)});
      notes.push_back(r.variant + " " + code + ": " + (r.skipped.empty() ? r.note : r.skipped));
    }
    out += "\n";
    for (const auto& n : notes) out += "- " + md_cell(n) + "\n";
    if (!notes.empty()) out += "\n";
  }
  return out;
}

}  // namespace sol::bench
