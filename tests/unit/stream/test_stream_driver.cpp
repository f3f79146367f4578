// The device-independent STREAM driver: names, the size rule, the gold-value checks (which must be
// able to fail: a device that corrupts its results is caught) and the result rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "stream/gold.hpp"

namespace conveyor::test {
namespace {

constexpr std::size_t kSmall = 4096;

StreamOptions small_options() {
  StreamOptions o;
  o.config.elements = kSmall;
  o.repeats = 3;
  o.allow_small = true;
  return o;
}

TEST(StreamNames, ParseAndPrint) {
  EXPECT_EQ(parse_stream_kernel("Triad"), StreamKernel::Triad);
  EXPECT_EQ(traits(StreamKernel::Dot).name, "dot");
  EXPECT_THROW(parse_stream_kernel("foo"), UsageError);
  EXPECT_EQ(parse_stream_variant("tuned"), StreamVariant::Tuned);
  EXPECT_THROW(parse_stream_variant("fast"), UsageError);
  EXPECT_EQ(parse_thread_binding("COMPACT"), ThreadBinding::Compact);
  EXPECT_THROW(parse_thread_binding("spread"), UsageError);
  EXPECT_EQ(parse_memory_tier("hbm"), MemoryTier::Hbm);
  EXPECT_THROW(parse_memory_tier("l3"), UsageError);
}

TEST(StreamNames, BytesAreCountedStreamStyle) {
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::Copy), 16u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::Scale), 16u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::Add), 24u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::Triad), 24u);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::Dot), 16u);
}

TEST(StreamGold, ReplaysStreamOnScalars) {
  stream::Gold g;
  for (StreamKernel k : kStreamKernels) g.apply(k, 3.0, 10);
  // c = a = 1; b = 3c = 3; c = a + b = 4; a = b + 3c = 15.
  EXPECT_EQ(g.a, 15.0);
  EXPECT_EQ(g.b, 3.0);
  EXPECT_EQ(g.c, 4.0);
  EXPECT_EQ(g.apply(StreamKernel::Dot, 3.0, 10), 15.0 * 3.0 * 10);
}

TEST(StreamValidation, AcceptsGoldAndRejectsAnyBadElement) {
  std::vector<double> a(1000, 15.0), b(1000, 3.0), c(1000, 4.0);
  EXPECT_NO_THROW(validate_stream_arrays(a, b, c, 15.0, 3.0, 4.0, "test"));
  // A relative error of 1e-15 is rounding, not a fault.
  a[10] = 15.0 * (1 + 1e-15);
  EXPECT_NO_THROW(validate_stream_arrays(a, b, c, 15.0, 3.0, 4.0, "test"));
  a[10] = 15.0 * (1 + 1e-12);
  EXPECT_THROW(validate_stream_arrays(a, b, c, 15.0, 3.0, 4.0, "test"), ValidationError);
  a[10] = 15.0;
  c[999] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(validate_stream_arrays(a, b, c, 15.0, 3.0, 4.0, "test"), ValidationError);
  c[999] = 4.0;
  try {
    b[0] = 0;
    validate_stream_arrays(a, b, c, 15.0, 3.0, 4.0, "cpu");
    FAIL() << "no ValidationError";
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("array b"), std::string::npos) << e.what();
  }
}

// A device whose arrays misbehave on purpose, wrapping the real CPU: the driver must notice.
enum class Fault { CorruptArray, CorruptHostMemory, WrongDot };

class FaultyArrays final : public StreamArrays {
 public:
  FaultyArrays(std::unique_ptr<StreamArrays> inner, Fault fault)
      : inner_(std::move(inner)), fault_(fault) {}
  void initialize(double a, double b, double c) override { inner_->initialize(a, b, c); }
  double run(StreamKernel kernel, double scalar, double* dot) override {
    double t = inner_->run(kernel, scalar, dot);
    if (fault_ == Fault::WrongDot && kernel == StreamKernel::Dot && dot) *dot *= 1.0 + 1e-6;
    if (fault_ == Fault::CorruptHostMemory && kernel == StreamKernel::Triad)
      const_cast<double*>(inner_->host_view().a)[kSmall - 1] *= 2;  // the last element, a tail
    return t;
  }
  HostView host_view() const override {
    return fault_ == Fault::CorruptHostMemory ? inner_->host_view() : HostView{};
  }
  void read_back(std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) override {
    inner_->read_back(a, b, c);
    if (fault_ == Fault::CorruptArray) c[c.size() / 2] += 1.0;
  }

 private:
  std::unique_ptr<StreamArrays> inner_;
  Fault fault_;
};

class FaultyDevice final : public Device {
 public:
  FaultyDevice(std::shared_ptr<Device> inner, Fault fault)
      : inner_(std::move(inner)), fault_(fault) {
    info_ = inner_->info();
  }
  std::unique_ptr<StreamArrays> make_stream_arrays(const StreamConfig& config) override {
    return std::make_unique<FaultyArrays>(inner_->make_stream_arrays(config), fault_);
  }
  std::unique_ptr<ProbeTarget> make_probe_target() override { return nullptr; }

 private:
  std::shared_ptr<Device> inner_;
  Fault fault_;
};

TEST(StreamDriver, CatchesACorruptedArray) {
  FaultyDevice device(find_device("cpu"), Fault::CorruptArray);
  EXPECT_THROW(run_stream(device, small_options()), ValidationError);
}

// The CPU's arrays are validated in place (no read-back copy); a fault there is caught too.
TEST(StreamDriver, CatchesCorruptedHostMemory) {
  FaultyDevice device(find_device("cpu"), Fault::CorruptHostMemory);
  StreamOptions o = small_options();
  o.kernels = {StreamKernel::Copy, StreamKernel::Triad};
  try {
    run_stream(device, o);
    FAIL() << "no ValidationError";
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("array a"), std::string::npos) << e.what();
  }
}

TEST(StreamDriver, CatchesAWrongDot) {
  FaultyDevice device(find_device("cpu"), Fault::WrongDot);
  StreamOptions o = small_options();
  o.kernels = {StreamKernel::Dot};
  EXPECT_THROW(run_stream(device, o), ValidationError);
  o.kernels = {StreamKernel::Copy, StreamKernel::Triad};  // no Dot: nothing to catch
  EXPECT_NO_THROW(run_stream(device, o));
}

TEST(StreamDriver, RefusesSmallArraysUnlessAllowedAndNotesIt) {
  auto cpu = find_device("cpu");
  const std::size_t min = stream_min_elements(*cpu);
  EXPECT_GE(min, std::size_t{1} << 20);
  EXPECT_GE(min * sizeof(double), 4 * host_topology().llc_total_bytes);
  StreamOptions o = small_options();
  o.allow_small = false;
  EXPECT_THROW(run_stream(*cpu, o), UsageError);
  o.allow_small = true;
  StreamRun run = run_stream(*cpu, o);
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("STREAM size rule"), std::string::npos) << run.notes[0];
  EXPECT_NE(run.notes[0].find("--allow-small"), std::string::npos) << run.notes[0];
  // At the rule's size there is nothing to note.
  o.config.elements = min;
  o.allow_small = false;
  o.kernels = {StreamKernel::Copy};
  o.repeats = 2;
  EXPECT_TRUE(check_stream_options(*cpu, o).empty());
}

TEST(StreamDriver, RejectsBadOptions) {
  auto cpu = find_device("cpu");
  StreamOptions o = small_options();
  o.repeats = 1;
  EXPECT_THROW(run_stream(*cpu, o), UsageError);
  o = small_options();
  o.kernels.clear();
  EXPECT_THROW(run_stream(*cpu, o), UsageError);
  o = small_options();
  o.repeats = 1000;  // 15x per repetition overflows a double
  EXPECT_THROW(check_stream_options(*cpu, o), UsageError);
  o = small_options();
  o.config.elements = std::size_t{1} << 50;  // 8 PiB per array
  EXPECT_THROW(check_stream_options(*cpu, o), UsageError);
  o = small_options();
  o.scalar = std::numeric_limits<double>::infinity();
  EXPECT_THROW(check_stream_options(*cpu, o), UsageError);
}

TEST(StreamDriver, ResultRowsFollowThePlotSchema) {
  auto cpu = find_device("cpu");
  StreamOptions o = small_options();
  o.kernels = {StreamKernel::Triad, StreamKernel::Copy};  // reported in STREAM order
  StreamRun run = run_stream(*cpu, o);
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].kernel, StreamKernel::Copy);
  EXPECT_EQ(run.results[1].kernel, StreamKernel::Triad);
  for (const StreamResult& r : run.results) {
    nlohmann::json row = r.to_json();
    for (const char* key : {"device", "variant", "threads", "binding", "kernel", "elements",
                            "bytes_per_iteration", "best_gbs", "median_gbs", "worst_gbs", "best_s",
                            "percent_of_peak", "validated", "numa_nodes", "huge_pages", "tier"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row["elements"], kSmall);
    EXPECT_EQ(row["bytes_per_iteration"], stream_bytes_per_element(r.kernel) * kSmall);
    EXPECT_TRUE(row["validated"].get<bool>());
    EXPECT_EQ(r.seconds.count, o.repeats - 1);
    EXPECT_GE(r.best_gbs, r.median_gbs);
    EXPECT_GE(r.median_gbs, r.worst_gbs);
    EXPECT_GT(r.worst_gbs, 0);
    EXPECT_NEAR(r.best_gbs, r.bytes_per_iteration / r.seconds.best / 1e9, 1e-9 * r.best_gbs);
    if (cpu->info().peak_gbs <= 0) EXPECT_TRUE(row["percent_of_peak"].is_null());
  }
}

}  // namespace
}  // namespace conveyor::test
