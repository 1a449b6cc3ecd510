// Predicted against measured, over committed results (include/sol/predict.hpp): per family and
// overall the mean, median and 90th percentile of |predicted − measured| ÷ measured, and the worst
// records with the term of the model that answers for them.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "sol/core/error.hpp"
#include "sol/core/format.hpp"
#include "sol/predict.hpp"

namespace sol::predict {

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = std::clamp(p, 0.0, 1.0) * double(v.size() - 1);
  const size_t lo = size_t(std::floor(at)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

namespace {
Stats stats_of(const std::string& family, const std::vector<double>& errors) {
  Stats s;
  s.family = family;
  s.count = int(errors.size());
  double sum = 0;
  for (double e : errors) sum += e;
  s.mape = errors.empty() ? 0 : sum / double(errors.size());
  s.median = quantile(errors, 0.5);
  s.p90 = quantile(errors, 0.9);
  return s;
}

std::string pct(double f) { return fixed(100 * f, 1) + " %"; }

// One sentence on the records validate() left out for host dispatch in their time; "" if none.
std::string host_timed_sentence(const Validation& v) {
  int n = 0;
  std::string where;
  for (const auto& [family, count] : v.host_timed) {
    n += count;
    where += (where.empty() ? "" : ", ") + family + " " + std::to_string(count);
  }
  if (!n) return "";
  return "Not in the error: " + std::to_string(n) + " verified PyTorch peer records timed around one eager call, the "
         "GPU idle while Python dispatched it (" + where + "): their times hold host dispatch and the model predicts "
         "device time. They come from files written before the PyTorch peers were device-timed; measured again, "
         "they count.";
}
}  // namespace

Validation validate(const std::vector<results::File>& files, const hw::HwSpec* profile, const Declared& declared) {
  Validation v;
  std::map<std::string, std::vector<double>> by_family;
  std::vector<double> all, own, peers;
  std::string sheet_names;
  for (const results::File& f : files) {
    if (f.device.database_row.empty()) bad_input("results file of family " + f.family + " names no database row");
    const hw::HwSpec& sheet = hw::find(f.device.database_row);
    if (sheet_names.find(sheet.name) == std::string::npos) sheet_names += (sheet_names.empty() ? "" : ", ") + sheet.name;
    const Ceilings c = ceilings_for(f, profile, sheet);
    for (const results::Record& r : f.records) {
      if (!results::valid(r)) continue;
      if (results::host_in_time(r)) {
        ++v.host_timed[r.family];
        continue;
      }
      Check k;
      k.record = r;
      try {
        Work w = work_of(f, r);
        if (declared)
          if (auto e = declared(r.family, r.variant, w.shape)) w.exec = *e;
        k.prediction = predict(w, c);
      } catch (const Error& e) {
        v.unpredicted.push_back(r.family + "/" + r.variant + " at " + r.shape + ": " + e.what());
        continue;
      }
      k.error = std::abs(k.prediction.seconds - r.median_s) / r.median_s;
      k.ratio = r.median_s / k.prediction.seconds;
      by_family[r.family].push_back(k.error);
      all.push_back(k.error);
      (results::is_peer(r) ? peers : own).push_back(k.error);
      v.checks.push_back(std::move(k));
    }
  }
  std::stable_sort(v.checks.begin(), v.checks.end(), [](const Check& a, const Check& b) { return a.error > b.error; });
  for (const auto& [family, errors] : by_family) v.families.push_back(stats_of(family, errors));
  v.sol_kernels = stats_of("sol's kernels", own);
  v.peers = stats_of("peers", peers);
  v.overall = stats_of("", all);
  v.ceilings = profile ? "the measured profile (" + profile->full_name + ") with each run's copy bandwidth and launch overhead"
                       : "the datasheet (" + sheet_names + ") with each run's measured ceilings where it has them";
  return v;
}

std::string cause(const Check& c) {
  const Prediction& p = c.prediction;
  std::string why = c.ratio > 1 ? fixed(c.ratio, 2) + "× slower than predicted"
                                : fixed(1 / c.ratio, 2) + "× faster than predicted";
  why += "; the model's largest term: " + p.limit;
  if (!p.rung.empty()) why += "; rung: " + p.rung;
  if (c.ratio > 1.5 && p.bound == "launch") why += "; a launch-sized kernel: host and driver gaps the model omits";
  return why;
}

namespace {
std::vector<std::string> family_row(const Stats& s) {
  return {s.family.empty() ? "overall" : s.family, std::to_string(s.count), pct(s.mape), pct(s.median), pct(s.p90)};
}
}  // namespace

std::string validation_text(const Validation& v, size_t worst) {
  std::ostringstream o;
  o << "predicted vs measured, " << v.overall.count << " verified records; predictions on " << v.ceilings << "\n";
  Table t({"family", "records", "MAPE", "median", "p90"});
  for (const Stats& s : v.families) t.add_row(family_row(s));
  t.add_row(family_row(v.sol_kernels));
  t.add_row(family_row(v.peers));
  t.add_row(family_row(v.overall));
  o << t.str();
  if (!v.checks.empty()) {
    o << "\nworst " << std::min(worst, v.checks.size()) << ":\n";
    for (size_t i = 0; i < std::min(worst, v.checks.size()); ++i) {
      const Check& c = v.checks[i];
      o << "  " << c.record.family << "/" << c.record.variant << " at " << c.record.shape << ": measured "
        << si(c.record.median_s, "s") << ", predicted " << si(c.prediction.seconds, "s") << " (" << pct(c.error) << ")\n"
        << "    " << cause(c) << "\n";
    }
  }
  for (const auto& u : v.unpredicted) o << "not predicted: " << u << "\n";
  if (const std::string left = host_timed_sentence(v); !left.empty()) o << left << "\n";
  return reflow(o.str());
}

std::string validation_markdown(const Validation& v, const std::string& results_dir, size_t worst) {
  std::ostringstream o;
  o << "<!-- generated by `sol validate --results " << results_dir
    << " --doc docs/validation.md`; edit the prose around this block, not the block -->\n";
  o << v.overall.count << " verified records of " << results_dir << ". Each prediction is the model's (sol/predict.hpp) "
    << "on " << v.ceilings << "; no record's own time enters its prediction. Error = |predicted − measured| ÷ measured.\n\n";
  o << "| family | records | MAPE | median | p90 |\n|---|---:|---:|---:|---:|\n";
  const auto row = [&](const Stats& s) {
    const auto cells = family_row(s);
    o << "| " << (s.family.empty() ? "**overall**" : cells[0]);
    for (size_t i = 1; i < cells.size(); ++i) o << " | " << cells[i];
    o << " |\n";
  };
  for (const Stats& s : v.families) row(s);
  row(v.sol_kernels);
  row(v.peers);
  row(v.overall);
  if (!v.checks.empty()) {
    o << "\nThe worst " << std::min(worst, v.checks.size()) << ":\n\n| record | measured | predicted | error | cause |\n"
      << "|---|---:|---:|---:|---|\n";
    for (size_t i = 0; i < std::min(worst, v.checks.size()); ++i) {
      const Check& c = v.checks[i];
      o << "| " << c.record.family << "/" << c.record.variant << " `" << c.record.shape << "` | "
        << si(c.record.median_s, "s") << " | " << si(c.prediction.seconds, "s") << " | " << pct(c.error) << " | "
        << cause(c) << " |\n";
    }
  }
  if (!v.unpredicted.empty()) {
    o << "\nNot predicted:\n\n";
    for (const auto& u : v.unpredicted) o << "- " << u << "\n";
  }
  if (const std::string left = host_timed_sentence(v); !left.empty()) o << "\n" << left << "\n";
  return o.str();
}

}  // namespace sol::predict
