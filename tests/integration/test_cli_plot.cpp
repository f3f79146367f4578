// conveyor plot: every result kind draws a real PNG (and SVG); bad input is one line and exit 2; a
// Python without matplotlib is one line naming scripts/setup-deps.sh and exit 1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(CONVEYOR_SOURCE_DIR) + "/tests/data/" + name;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

/// PNG width in pixels from the IHDR chunk (bytes 16..19, big-endian).
std::uint32_t png_width(const std::string& png) {
  std::uint32_t width = 0;
  for (int i = 16; i < 20; ++i) width = (width << 8) | static_cast<unsigned char>(png[i]);
  return width;
}

bool is_png(const std::string& bytes) { return bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

/// A fresh directory per test, removed afterwards.
class CliPlot : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return scratch_.path(name); }

  /// Runs `conveyor plot ARGS` and expects exit 2, one line on stderr that mentions `needle`, no
  /// figure.
  void expect_usage_error(const std::string& args, const std::string& needle) {
    CliResult r = run_cli("plot " + args + " -o " + path("never.png"));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("never.png")));
  }

  ScratchDir scratch_;
};

class CliPlotKinds : public CliPlot, public ::testing::WithParamInterface<const char*> {};

TEST_P(CliPlotKinds, DrawsAPng) {
  std::string out = path("figure.png");
  CliResult r = run_cli("plot " + fixture(GetParam()) + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote"), std::string::npos) << r.out;
  std::string png = slurp(out);
  EXPECT_TRUE(is_png(png));
  EXPECT_GT(png.size(), 20u * 1024) << "a figure with data is larger than an empty canvas";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliPlotKinds,
                         ::testing::Values("stream_threads.json", "stream_single.json",
                                           "stream_pipeline.json", "probe.json", "cholesky.json",
                                           "qr.json", "stencil.json", "trace.json",
                                           "trace_phases.json", "sim_sweep.json"),
                         [](const auto& info) {
                           std::string name = fs::path(info.param).stem().string();
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST_F(CliPlot, DrawsAnSvg) {
  std::string out = path("figure.SVG");  // the extension is case-insensitive
  CliResult r = run_cli("plot " + fixture("probe.json") + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = slurp(out);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST_F(CliPlot, DrawsATraceGivenAsAPlainList) {
  write(path("list.json"),
        R"([{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"mover"}},)"
        R"({"ph":"X","name":"copy","cat":"transfer","pid":1,"tid":7,"ts":0,"dur":40},)"
        R"({"ph":"X","name":"gemm","cat":"task","pid":1,"tid":8,"ts":10,"dur":90},)"
        R"({"ph":"i","name":"mark","pid":1,"tid":8,"ts":5}])");
  CliResult r = run_cli("plot " + path("list.json") + " -o " + path("gantt.png"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_png(slurp(path("gantt.png"))));
}

TEST_F(CliPlot, DrawsSeveralResultsOfOneKindTogether) {
  CliResult r =
      run_cli("plot " + fixture("stream_threads.json") + " " + fixture("stream_single.json") +
              " -o " + path("both.png") + " --title 'two runs'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(is_png(slurp(path("both.png"))));
}

TEST_F(CliPlot, DpiScalesThePng) {
  ASSERT_EQ(
      run_cli("plot " + fixture("cholesky.json") + " -o " + path("a.png") + " --dpi 50").exit_code,
      0);
  ASSERT_EQ(
      run_cli("plot " + fixture("cholesky.json") + " -o " + path("b.png") + " --dpi 100").exit_code,
      0);
  std::uint32_t narrow = png_width(slurp(path("a.png")));
  std::uint32_t wide = png_width(slurp(path("b.png")));
  EXPECT_GT(narrow, 100u);
  EXPECT_NEAR(static_cast<double>(wide), 2.0 * narrow, 2.0);
}

TEST_F(CliPlot, MissingFileIsAUsageError) {
  expect_usage_error(path("absent.json"), "no such file");
}

TEST_F(CliPlot, InvalidJsonIsAUsageError) {
  write(path("bad.json"), "{\"conveyor\": \"0.1.0\", ");
  expect_usage_error(path("bad.json"), "not JSON");
}

TEST_F(CliPlot, JsonThatConveyorDidNotWriteIsAUsageError) {
  write(path("other.json"), R"({"name": "something else"})");
  expect_usage_error(path("other.json"), "not a Conveyor result");
}

TEST_F(CliPlot, UnknownCommandIsAUsageError) {
  expect_usage_error(fixture("devices.json"), "cannot plot 'devices'");
}

TEST_F(CliPlot, MixedKindsAreAUsageError) {
  expect_usage_error(fixture("probe.json") + " " + fixture("cholesky.json"), "in one figure");
}

TEST_F(CliPlot, BadOutputExtensionIsAUsageError) {
  CliResult r = run_cli("plot " + fixture("probe.json") + " -o " + path("figure.pdf"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(".png or .svg"), std::string::npos) << r.err;
}

TEST_F(CliPlot, MissingOutputOptionIsAUsageError) {
  CliResult r = run_cli("plot " + fixture("probe.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
}

// Checked by the Python side: the rows themselves.
TEST_F(CliPlot, RowWithoutItsValueIsAUsageErrorWithoutTraceback) {
  write(path("stream.json"),
        R"({"conveyor":"0.1.0","schema":1,"command":"stream","machine":{},"results":[)"
        R"({"device":"cpu","kernel":"triad","threads":1,"median_gbs":3.0}]})");
  expect_usage_error(path("stream.json"), "best_gbs");
}

TEST_F(CliPlot, TraceWithoutCompleteEventsIsAUsageError) {
  write(path("trace.json"), R"({"traceEvents":[{"ph":"B","name":"x","pid":1,"tid":1,"ts":0}]})");
  expect_usage_error(path("trace.json"), "no complete events");
}

/// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST_F(CliPlot, MissingPythonIsARuntimeErrorNamingSetupDeps) {
  ScopedEnv python("CONVEYOR_PYTHON", path("no-such-python"));
  CliResult r = run_cli("plot " + fixture("probe.json") + " -o " + path("x.png"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("scripts/setup-deps.sh"), std::string::npos) << r.err;
}

TEST_F(CliPlot, PythonWithoutMatplotlibIsARuntimeErrorNamingSetupDeps) {
  // python3 -S skips site-packages, where pip and Debian put matplotlib; PYTHONPATH still finds
  // conveyor_plot. Skipped where that python can still import matplotlib (or there is no python3).
  std::string bare = path("bare-python");
  write(bare, "#!/bin/sh\nexec python3 -S \"$@\"\n");
  fs::permissions(bare, fs::perms::owner_all);
  std::string probe = bare + " -c 'import json' >/dev/null 2>&1 && ! " + bare +
                      " -c 'import matplotlib' >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0)
    GTEST_SKIP() << "cannot make a python3 without matplotlib here";
  ScopedEnv python("CONVEYOR_PYTHON", bare);
  CliResult r = run_cli("plot " + fixture("probe.json") + " -o " + path("x.png"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("matplotlib"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scripts/setup-deps.sh"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("x.png")));
}

TEST_F(CliPlot, UnwritableOutputIsARuntimeError) {
  CliResult r = run_cli("plot " + fixture("cholesky.json") + " -o " + path("no-dir/x.png"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test
