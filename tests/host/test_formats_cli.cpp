// `sol cast` and `sol quant` as a user runs them (the built binary, SOL_BIN): JSON against the
// library on the same inputs, values from arguments and from stdin, and bad input as exit
// code 2 with exactly one line on stderr.
#include <gtest/gtest.h>

#include "tests/host/sol_cli.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sol/formats/mx.hpp"

using json = nlohmann::json;
using namespace sol::formats;

namespace {

using Ran = sol::test::CliRun;

// `sol ARGS` with `input` on stdin.
Ran run_sol(const std::string& args, const std::string& input = "") { return sol::test::run_sol(args, sol::test::with_input(input)); }

json sol_json(const std::string& args, const std::string& input = "") {
  const Ran r = run_sol(args, input);
  EXPECT_EQ(r.rc, 0) << args << "\n" << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << args << ": not JSON: " << e.what() << "\n" << r.out;
    return json::array();
  }
}

void expect_one_line_error(const std::string& args, const std::string& mentions) {
  const Ran r = run_sol(args);
  EXPECT_EQ(r.rc, 2) << args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << args << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
}

}  // namespace

TEST(CastCli, JsonMatchesTheLibrary) {
  const std::vector<std::string> values = {"0", "-0", "1", "-2.75", "448", "464", "465", "1e9", "0x1p-9", "3.3e-3", "nan", "inf", "-inf"};
  std::string args;
  for (const auto& v : values) args += " " + v;
  for (Format f : {Format::bf16, Format::fp16, Format::e4m3, Format::e5m2}) {
    for (bool sat : {false, true}) {
      SCOPED_TRACE(format_name(f) + (sat ? " saturate" : " plain"));
      const json j = sol_json("cast --json --to " + format_name(f) + (sat ? " --saturate" : "") + args)["values"];
      ASSERT_EQ(j.size(), values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        const float x = std::strtof(values[i].c_str(), nullptr);
        const uint32_t code = encode_checked(f, x, sat ? Overflow::Saturate : Overflow::Plain);
        EXPECT_EQ(j[i]["bits"].get<uint32_t>(), code) << values[i];
        EXPECT_EQ(j[i]["fields"], fields(f, code));
        const float v = decode_value(f, code);
        if (std::isfinite(v)) {
          EXPECT_EQ(j[i]["value"].get<double>(), double(v)) << values[i];
        } else {
          EXPECT_EQ(j[i]["value"].get<std::string>(), std::isnan(v) ? (std::signbit(v) ? "-nan" : "nan") : (v > 0 ? "inf" : "-inf"));
        }
        if (std::isfinite(x)) {
          EXPECT_EQ(j[i]["in"].get<double>(), double(x));
        }
      }
    }
  }
}

TEST(CastCli, OverflowAsTheIssueStates) {
  // Plain: NaN for e4m3, infinity for e5m2; saturating: the largest finite value.
  EXPECT_EQ(sol_json("cast --json --to e4m3 1000")["values"][0]["value"], "nan");
  EXPECT_EQ(sol_json("cast --json --to e5m2 1e6")["values"][0]["value"], "inf");
  EXPECT_EQ(sol_json("cast --json --to e4m3 --saturate 1000")["values"][0]["value"], 448.0);
  EXPECT_EQ(sol_json("cast --json --to e5m2 --saturate -1e6")["values"][0]["value"], -57344.0);
  EXPECT_EQ(sol_json("cast --json --to e4m3 --saturate nan")["values"][0]["value"], "nan");
  EXPECT_EQ(sol_json("cast --json --to e8m0 1.5 1e-40")["values"][0]["bits"], 128);
  EXPECT_EQ(sol_json("cast --json --to e2m1 2.5 100")["values"][1]["value"], 6.0);
}

TEST(CastCli, ReadsStdinWhenNoValuesAreGiven) {
  const json j = sol_json("cast --json --to bf16", "1\n\n  3.14159265\n-inf\n")["values"];
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["bits"], 0x3F80);
  EXPECT_EQ(j[1]["bits"], 0x4049);
  EXPECT_EQ(j[2]["bits"], 0xFF80);
  const Ran text = run_sol("cast --to e4m3", "448\n");
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("0 1111 110"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("0x7e"), std::string::npos) << text.out;
}

TEST(CastCli, BadInputIsOneLineAndExitTwo) {
  expect_one_line_error("cast --to e4m3 abc", "not a number");
  expect_one_line_error("cast --to e4m3 1.5x", "not a number");
  expect_one_line_error("cast --to fp7 1", "unknown format");
  expect_one_line_error("cast --to e2m1 nan", "no NaN");
  expect_one_line_error("cast --to e8m0 -4", "no sign");
  expect_one_line_error("cast 1", "--to");
}

TEST(QuantCli, JsonMatchesTheLibrary) {
  const json j = sol_json("quant --json --fmt mxfp8-e4m3 --rule ocp --dist student-t --shape 96,160 --seed 5");
  EXPECT_EQ(j["fmt"], "mxfp8-e4m3");
  EXPECT_EQ(j["rule"], "ocp");
  EXPECT_EQ(j["rows"], 96);
  EXPECT_EQ(j["cols"], 160);
  const std::vector<float> x = generate(Dist::StudentT, 96, 160, 5);
  const MxError row = mx_error(x, mx_quantize(x, 96, 160, Format::e4m3, ScaleRule::Ocp, MxAxis::Rowwise));
  const MxError col = mx_error(x, mx_quantize(x, 96, 160, Format::e4m3, ScaleRule::Ocp, MxAxis::Colwise));
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["results"][0]["rel_l2"].get<double>(), row.rel_l2);
  EXPECT_DOUBLE_EQ(j["results"][0]["saturated"].get<double>(), row.saturated);
  EXPECT_DOUBLE_EQ(j["results"][1]["rel_l2"].get<double>(), col.rel_l2);
  EXPECT_DOUBLE_EQ(j["results"][1]["snr_db"].get<double>(), col.snr_db);
  EXPECT_EQ(j["results"][0]["elements"], 96 * 160);
}

TEST(QuantCli, TheRecipesPoints) {
  // Ceil never saturates; OCP does on a normal tensor (blocks whose max has mantissa > 1.75).
  for (const char* fmt : {"mxfp8-e4m3", "mxfp8-e5m2"}) {
    SCOPED_TRACE(fmt);
    const std::string base = std::string("quant --json --fmt ") + fmt + " --dist normal --shape 256,256";
    EXPECT_EQ(sol_json(base + " --rule ceil")["results"][0]["saturated"].get<double>(), 0.0);
    EXPECT_GT(sol_json(base + " --rule ocp")["results"][0]["saturated"].get<double>(), 0.0);
  }
  // Outlier channels: rowwise blocks flush far more than columnwise ones; re-quantizing the rowwise
  // copy columnwise is worse than quantizing bf16 columnwise.
  const json o = sol_json("quant --json --fmt mxfp8-e4m3 --rule ceil --dist outliers --shape 512,512");
  EXPECT_GT(o["results"][0]["flushed"].get<double>(), o["results"][1]["flushed"].get<double>());
  EXPECT_GT(o["results"][2]["rel_l2"].get<double>(), o["results"][1]["rel_l2"].get<double>());
  EXPECT_GT(o["rowwise_columnwise_differ"].get<double>(), 0.0);
}

TEST(QuantCli, TextNamesWhatItCompares) {
  const Ran r = run_sol("quant --fmt mxfp8-e5m2 --rule ceil --dist outliers --shape 64,64");
  EXPECT_EQ(r.rc, 0) << r.err;
  for (const char* s : {"rowwise (1x32)", "columnwise (32x1)", "columnwise from rowwise fp8", "against bf16", "SNR"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(QuantCli, BadInputIsOneLineAndExitTwo) {
  const std::string ok = " --rule ceil --dist normal";
  expect_one_line_error("quant --fmt mxfp6" + ok, "unknown MX format");
  expect_one_line_error("quant --fmt mxfp8-e4m3 --rule even --dist normal", "unknown scale rule");
  expect_one_line_error("quant --fmt mxfp8-e4m3 --rule ocp --dist uniform", "unknown distribution");
  expect_one_line_error("quant --fmt mxfp8-e4m3" + ok + " --shape 0,5", "--shape");
  expect_one_line_error("quant --fmt mxfp8-e4m3" + ok + " --shape 64", "--shape");
  expect_one_line_error("quant --fmt mxfp8-e4m3" + ok + " --shape 2^20,2^20", "2^26");
  expect_one_line_error("quant --rule ceil --dist normal", "--fmt");
}
