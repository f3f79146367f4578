// Performance models without a device: history statistics, the robust estimator under injected
// outliers, the size regression, footprints, and the models file (round trip, corrupt, foreign,
// other schema).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "runtime/perfmodel/models.hpp"
#include "scratch_dir.hpp"

namespace conveyor::runtime::perfmodel {
namespace {

// One private directory per test process, removed at exit.
std::filesystem::path temp_file(const std::string& name) {
  static conveyor::test::ScratchDir dir;
  return dir.dir() / name;
}

MachineFingerprint this_machine() { return {"host-a", "cpu-a", {"opencl:0: pocl"}}; }

TEST(PerfModelHistory, MeanDeviationAndMedian) {
  History h;
  for (double x : {1.0, 2.0, 3.0, 4.0}) EXPECT_TRUE(h.add(x));
  EXPECT_EQ(h.count(), 4u);
  EXPECT_DOUBLE_EQ(h.mean(), 2.5);
  EXPECT_NEAR(h.deviation(), std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_DOUBLE_EQ(h.median(), 2.5);
}

TEST(PerfModelHistory, SpikesAreOutliersAndDoNotMoveTheMedian) {
  History h;
  for (int i = 0; i < 20; ++i) h.add(1e-3 * (1 + 0.01 * (i % 3)));
  // A device's kernel measured at 100x its usual time, three times.
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(h.add(0.1));
  EXPECT_EQ(h.outliers(), 3u);
  EXPECT_NEAR(h.median(), 1e-3, 2e-5);
  EXPECT_NEAR(h.mean(), 1.01e-3, 1e-5);  // the spikes are not in the mean either
}

TEST(PerfModelHistory, APersistentChangeWinsOverTheRing) {
  History h;
  for (int i = 0; i < 32; ++i) h.add(1e-3);
  for (int i = 0; i < 20; ++i) h.add(3e-3);  // the machine got busier, for good
  EXPECT_NEAR(h.median(), 3e-3, 1e-9);
}

// The median and the outlier test read a sorted copy of the ring kept beside it: over random
// samples (repeated values, spikes, the ring wrapping many times) they must give what sorting the
// last 32 samples gives.
TEST(PerfModelHistory, TheKeptOrderAgreesWithSortingTheRing) {
  std::uint64_t state = 20261128;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 40) / static_cast<double>(1ull << 24);  // [0, 1)
  };
  History h;
  std::vector<double> all;
  for (int i = 0; i < 500; ++i) {
    double x = next() < 0.1 ? 50.0 * next() : std::round(8.0 * next()) / 8.0 + 1.0;
    std::vector<double> ring(all.end() - std::min<std::ptrdiff_t>(all.size(), History::kRing),
                             all.end());
    bool expect_outlier = false;
    if (ring.size() >= 5) {
      double m = median(ring);
      std::vector<double> dev;
      for (double r : ring) dev.push_back(std::fabs(r - m));
      double spread = std::max(History::kOutlierMads * 1.4826 * median(dev), 0.25 * m);
      expect_outlier = std::fabs(x - m) > spread;
    }
    ASSERT_EQ(h.add(x), !expect_outlier) << "sample " << i;
    all.push_back(x);
    ring.push_back(x);
    if (ring.size() > History::kRing) ring.erase(ring.begin());
    ASSERT_EQ(h.median(), median(ring)) << "sample " << i;
  }
  EXPECT_GT(h.outliers(), 0u);
  EXPECT_LT(h.outliers(), 100u);
}

TEST(PerfModelFootprint, SameSizesSameFootprint) {
  std::vector<std::size_t> a{100, 200}, b{100, 200}, c{200, 100}, d{100};
  EXPECT_EQ(footprint(a), footprint(b));
  EXPECT_NE(footprint(a), footprint(c));  // order matters: buffers are in access order
  EXPECT_NE(footprint(a), footprint(d));
}

TEST(PerfModelFit, RecoversAPowerLawWithAFixedCost) {
  std::vector<std::pair<double, double>> points;
  for (double x : {1e4, 1e5, 1e6, 1e7}) points.emplace_back(x, 2e-9 * std::pow(x, 1.5) + 1e-5);
  PowerFit f = fit_power(points);
  EXPECT_EQ(f.points, 4u);
  for (const auto& [x, t] : points) EXPECT_NEAR(f.predict(x) / t, 1.0, 0.1) << x;
  EXPECT_NEAR(f.b, 1.5, 0.1);
  // Between and beyond the measured sizes.
  EXPECT_NEAR(f.predict(3e6) / (2e-9 * std::pow(3e6, 1.5) + 1e-5), 1.0, 0.1);
}

TEST(PerfModelFit, OneAndTwoPoints) {
  std::vector<std::pair<double, double>> one{{1000, 1e-3}};
  EXPECT_NEAR(fit_power(one).predict(2000), 2e-3, 1e-12);
  std::vector<std::pair<double, double>> two{{1000, 1e-3}, {8000, 8e-3 * 2.8284271}};
  EXPECT_NEAR(fit_power(two).b, 1.5, 1e-6);
  EXPECT_FALSE(fit_power({}).valid());
  // A spike on the small size would give a negative exponent: no time falls as sizes grow.
  std::vector<std::pair<double, double>> spike{{1000, 0.6}, {16000, 0.04}};
  PowerFit f = fit_power(spike);
  EXPECT_EQ(f.b, 0.0);
  EXPECT_GE(f.predict(64000), f.predict(16000));
}

TEST(PerfModelPredict, HistoryThenRegressionThenFlops) {
  PerfModels m;
  TaskShape small{1, 1000, 2e6}, large{2, 8000, 16e6}, unseen{3, 4000, 8e6};
  EXPECT_FALSE(m.predict("gemm", "cpu", small).known());
  m.record("gemm", "cpu", small, 1e-3);
  // One sample: its time per flop carries over to other sizes.
  auto p = m.predict("gemm", "cpu", large);
  EXPECT_EQ(p.source, Source::Flops);
  EXPECT_NEAR(p.seconds, 8e-3, 1e-9);
  for (int i = 0; i < 3; ++i) m.record("gemm", "cpu", large, 4e-3);
  EXPECT_EQ(m.predict("gemm", "cpu", large).source, Source::History);
  EXPECT_NEAR(m.predict("gemm", "cpu", large).seconds, 4e-3, 1e-12);
  // Two footprints: the fitted curve for a size never measured.
  p = m.predict("gemm", "cpu", unseen);
  EXPECT_EQ(p.source, Source::Regression);
  EXPECT_GT(p.seconds, 1e-3);
  EXPECT_LT(p.seconds, 4e-3);
  EXPECT_EQ(m.samples("gemm", "cpu"), 4u);
  EXPECT_EQ(m.samples("gemm", "cpu", 2), 3u);
  EXPECT_EQ(m.samples("gemm", "opencl:0"), 0u);
}

TEST(PerfModelPredict, PredictionErrorIsAMedian) {
  PerfModels m;
  m.record_error("gemm", "cpu", 1.1, 1.0);
  m.record_error("gemm", "cpu", 0.9, 1.0);
  m.record_error("gemm", "cpu", 10.0, 1.0);  // one bad prediction does not make the figure
  auto [error, n] = m.prediction_error("gemm", "cpu");
  EXPECT_EQ(n, 3u);
  EXPECT_NEAR(error, 0.1, 1e-9);
}

PerfModels sample_models() {
  PerfModels m;
  m.machine = this_machine();
  for (int i = 0; i < 40; ++i) m.record("gemm", "cpu", {7, 3000, 1e6}, 1e-3 + 1e-6 * i);
  m.record("gemm", "cpu", {8, 12000, 8e6}, 7e-3);
  m.record("potrf", "opencl:0", {9, 500, 0}, 2e-4);
  m.record_error("gemm", "cpu", 1.05e-3, 1e-3);
  m.links()["opencl:0"] = {25.0, 12.5, "measured"};
  return m;
}

TEST(PerfModelFile, RoundTrip) {
  auto path = temp_file("round_trip.json");
  PerfModels m = sample_models();
  m.save(path);
  PerfModels back = PerfModels::load(path, this_machine());
  ASSERT_EQ(back.rows().size(), m.rows().size());
  for (const auto& row : m.rows()) {
    TaskShape s{row.footprint, row.bytes, 0};
    EXPECT_DOUBLE_EQ(back.predict(row.codelet, row.device, s).seconds,
                     m.predict(row.codelet, row.device, s).seconds)
        << row.codelet << " " << row.device;
    EXPECT_EQ(back.samples(row.codelet, row.device, row.footprint), row.history->count());
  }
  EXPECT_NEAR(back.fit("gemm", "cpu")->b, m.fit("gemm", "cpu")->b, 1e-12);
  EXPECT_EQ(back.prediction_error("gemm", "cpu").second, 1u);
  ASSERT_EQ(back.links().count("opencl:0"), 1u);
  EXPECT_DOUBLE_EQ(back.links().at("opencl:0").bw_gbs, 12.5);
  EXPECT_EQ(back.links().at("opencl:0").source, "measured");
  // Written whole then renamed: no temporary left behind.
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path()))
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
}

TEST(PerfModelFile, MissingIsEmpty) {
  PerfModels m = PerfModels::load(temp_file("absent.json"), this_machine());
  EXPECT_TRUE(m.rows().empty());
}

void expect_refused(const std::filesystem::path& path, const std::string& why) {
  try {
    PerfModels::load(path, this_machine());
    ADD_FAILURE() << "loaded " << path;
  } catch (const UsageError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(why), std::string::npos) << what;
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

TEST(PerfModelFile, CorruptForeignAndOtherSchemaAreRefusedInOneLine) {
  auto corrupt = temp_file("corrupt.json");
  sample_models().save(corrupt);
  std::filesystem::resize_file(corrupt, std::filesystem::file_size(corrupt) / 2);  // truncated
  expect_refused(corrupt, "not valid JSON");

  auto foreign = temp_file("foreign.json");
  PerfModels other = sample_models();
  other.machine.hostname = "host-b";
  other.save(foreign);
  expect_refused(foreign, "another machine");

  auto schema = temp_file("schema.json");
  auto doc = sample_models().to_json();
  doc["conveyor_perfmodels"] = kModelsSchema + 1;
  std::ofstream(schema) << doc.dump();
  expect_refused(schema, "schema");

  auto calibration = temp_file("not_models.json");
  std::ofstream(calibration) << R"({"schema": 1, "entries": []})";
  expect_refused(calibration, "not a Conveyor models file");

  auto malformed = temp_file("malformed.json");
  doc = sample_models().to_json();
  doc["models"][0]["footprints"][0].erase("recent_s");
  std::ofstream(malformed) << doc.dump();
  expect_refused(malformed, "malformed");
}

// Regression found by fuzz/performance_model.cpp (fuzz/corpus/performance_model/crash_*): counts
// that are floats beyond uint64_t ("bytes": 1e30) were cast by nlohmann's get<uint64_t>(),
// undefined behaviour; a schema of 2^32 + 1 was read as 1.
TEST(PerfModelFile, CountsThatAreFloatsOrOutOfRangeAreRefused) {
  auto doc = sample_models().to_json();
  doc["models"][0]["footprints"][0]["bytes"] = 1e30;
  EXPECT_THROW(PerfModels::from_json(doc, "m.json"), UsageError);
  doc = sample_models().to_json();
  doc["models"][0]["footprints"][0]["samples"] = -3;
  EXPECT_THROW(PerfModels::from_json(doc, "m.json"), UsageError);
  doc = sample_models().to_json();
  doc["models"][0]["seconds_per_flop"]["accepted"] = 2.5;
  EXPECT_THROW(PerfModels::from_json(doc, "m.json"), UsageError);
  doc = sample_models().to_json();
  doc["conveyor_perfmodels"] = (std::uint64_t{1} << 32) + kModelsSchema;
  EXPECT_THROW(PerfModels::from_json(doc, "m.json"), UsageError);
  EXPECT_NO_THROW(PerfModels::from_json(sample_models().to_json(), "m.json"));
}

TEST(PerfModelLink, LatencyPlusBytesOverBandwidth) {
  LinkModel l{10.0, 2.0, "probe"};
  EXPECT_DOUBLE_EQ(l.seconds(0), 0.0);
  EXPECT_NEAR(l.seconds(2'000'000), 10e-6 + 1e-3, 1e-12);
}

}  // namespace
}  // namespace conveyor::runtime::perfmodel
