// STREAM through the driver on every device: every kernel of every variant, validated against gold
// values on small arrays (--allow-small), and the CPU's threads, bindings and placements.
#include <gtest/gtest.h>

#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::test {
namespace {

using StreamPerDevice = PerDevice;

StreamOptions small(std::size_t elements) {
  StreamOptions o;
  o.config.elements = elements;
  o.repeats = 3;
  o.allow_small = true;
  return o;
}

TEST_P(StreamPerDevice, EveryKernelAndVariantValidates) {
  for (StreamVariant variant : {StreamVariant::Standard, StreamVariant::Tuned}) {
    // Odd lengths leave tails in every vector loop and work-group.
    for (std::size_t n : {std::size_t{1}, std::size_t{1001}, std::size_t{65543}}) {
      SCOPED_TRACE(testing::Message() << to_string(variant) << " n=" << n);
      StreamOptions o = small(n);
      o.config.variant = variant;
      StreamRun run = run_stream(device(), o);
      ASSERT_EQ(run.results.size(), kStreamKernels.size());
      for (const StreamResult& r : run.results) {
        EXPECT_TRUE(r.validated);
        EXPECT_EQ(r.device, device().info().id);
        EXPECT_GT(r.best_gbs, 0);
      }
    }
  }
}

TEST_P(StreamPerDevice, OtherScalarAndManyRepeatsValidate) {
  StreamOptions o = small(4099);
  o.scalar = 0.5;
  o.repeats = 40;
  EXPECT_NO_THROW(run_stream(device(), o));
}

TEST_P(StreamPerDevice, RefusesArraysLargerThanTheDevice) {
  StreamOptions o = small(device().info().memory_bytes / sizeof(double));
  EXPECT_THROW(check_stream_options(device(), o), UsageError);
  StreamConfig empty;
  empty.elements = 0;
  EXPECT_THROW(device().make_stream_arrays(empty), UsageError);
  if (device().info().kind == DeviceKind::Cpu) return;  // would try to allocate it
  // The backend's own guard: each array alone fills the device.
  EXPECT_THROW(device().make_stream_arrays(o.config), UsageError);
}

// Each kernel through the device's arrays against the same kernel on host values, twice in STREAM
// order (every kernel changes every element, so a skipped one shows), on lengths that leave tails
// in vector loops, work-groups and double2 loads. Small integers keep every value exact: device and
// host agree bit for bit, fused multiply-add or not.
TEST_P(StreamPerDevice, ArraysMatchTheHostOnOddLengths) {
  const double scalar = 3.0;
  for (StreamVariant variant : {StreamVariant::Standard, StreamVariant::Tuned}) {
    for (std::size_t n : {1, 2, 3, 17, 31, 1023, 1025, 4097, 65537}) {
      SCOPED_TRACE(testing::Message() << to_string(variant) << " n=" << n);
      StreamConfig config;
      config.elements = n;
      config.variant = variant;
      auto arrays = device().make_stream_arrays(config);
      arrays->initialize(1.0, 2.0, 0.0);
      std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.0), da, db, dc;
      for (int round = 0; round < 2; ++round) {
        for (StreamKernel kernel : kStreamKernels) {
          double dot = -1, expected_dot = 0;
          EXPECT_GE(arrays->run(kernel, scalar, &dot), 0.0);
          for (std::size_t i = 0; i < n; ++i) {
            switch (kernel) {
              case StreamKernel::Copy:
                c[i] = a[i];
                break;
              case StreamKernel::Scale:
                b[i] = scalar * c[i];
                break;
              case StreamKernel::Add:
                c[i] = a[i] + b[i];
                break;
              case StreamKernel::Triad:
                a[i] = b[i] + scalar * c[i];
                break;
              case StreamKernel::Dot:
                expected_dot += a[i] * b[i];
                break;
            }
          }
          if (kernel == StreamKernel::Dot) EXPECT_EQ(dot, expected_dot);
        }
      }
      arrays->read_back(da, db, dc);
      ASSERT_EQ(da, a);
      ASSERT_EQ(db, b);
      ASSERT_EQ(dc, c);
      if (device().info().kind != DeviceKind::Cpu)  // the CPU records threads and nodes instead
        EXPECT_EQ(arrays->placement().value("device", ""), device().info().id);
    }
  }
}

TEST_P(StreamPerDevice, DotWithoutResultPointerStillRuns) {
  StreamConfig config;
  config.elements = 4099;
  auto arrays = device().make_stream_arrays(config);
  arrays->initialize(0.5, 2.0, 0.0);
  EXPECT_GE(arrays->run(StreamKernel::Dot, 0.0, nullptr), 0.0);
  double dot = 0;
  arrays->run(StreamKernel::Dot, 0.0, &dot);
  EXPECT_EQ(dot, 4099.0);
}

CONVEYOR_INSTANTIATE_PER_DEVICE(StreamPerDevice);

// CPU only: threads, bindings, pages and NUMA placement.
TEST(CpuStream, EveryThreadCountAndBindingValidates) {
  auto cpu = find_device("cpu");
  int hw = 0;
  for (const auto& core : host_topology().cores) hw += static_cast<int>(core.pus.size());
  for (int threads : {1, hw})
    for (ThreadBinding binding :
         {ThreadBinding::Scatter, ThreadBinding::Compact, ThreadBinding::None})
      for (StreamVariant variant : {StreamVariant::Standard, StreamVariant::Tuned}) {
        StreamOptions o = small(30011);  // slices end mid-line
        o.config.threads = threads;
        o.config.binding = binding;
        o.config.variant = variant;
        StreamRun run = run_stream(*cpu, o);
        nlohmann::json row = run.results.front().to_json();
        EXPECT_EQ(row["threads"], threads);
        EXPECT_EQ(row["binding"], std::string(to_string(binding)));
        EXPECT_EQ(row["cpus"].size(),
                  binding == ThreadBinding::None ? 0u : static_cast<std::size_t>(threads));
      }
  // More threads than elements: some members get empty slices.
  StreamOptions o = small(3);
  o.config.threads = hw;
  EXPECT_NO_THROW(run_stream(*cpu, o));
}

TEST(CpuStream, RecordsPlacement) {
  auto cpu = find_device("cpu");
  StreamOptions o = small(2048);
  o.kernels = {StreamKernel::Triad};
  nlohmann::json row = run_stream(*cpu, o).results.front().to_json();
  EXPECT_EQ(row["huge_pages"], true);
  EXPECT_EQ(row["alignment_bytes"], 2u << 20);
  EXPECT_EQ(row["tier"], "default");
  EXPECT_EQ(row["first_touch"], "parallel");
  EXPECT_TRUE(row["numa_nodes"].empty());
  o.config.huge_pages = false;
  o.config.variant = StreamVariant::Tuned;
  row = run_stream(*cpu, o).results.front().to_json();
  EXPECT_EQ(row["huge_pages"], false);
  EXPECT_EQ(row["variant"], "tuned");
  EXPECT_TRUE(row.contains("isa"));
}

TEST(CpuStream, BindsToANumaNodeOrRefusesClearly) {
  auto cpu = find_device("cpu");
  const Topology& t = host_topology();
  StreamOptions o = small(4096);
  o.config.numa_node = t.numa_nodes.empty() ? 0 : t.numa_nodes.front().os_index;
  try {
    nlohmann::json row = run_stream(*cpu, o).results.front().to_json();
    ASSERT_EQ(row["numa_nodes"].size(), 1u);
    EXPECT_EQ(row["numa_nodes"][0], o.config.numa_node);
  } catch (const UsageError& e) {
    // Only acceptable reason: built without libnuma or a kernel without NUMA.
    EXPECT_NE(std::string(e.what()).find("NUMA"), std::string::npos) << e.what();
  } catch (const Error& e) {
    // Containers often forbid mbind (seccomp without CAP_SYS_NICE): a runtime failure, not a pass.
    if (std::string(e.what()).find("mbind") == std::string::npos) throw;
    GTEST_SKIP() << e.what();
  }
  o.config.numa_node = 4095;
  EXPECT_THROW(run_stream(*cpu, o), UsageError);
}

TEST(CpuStream, TierNeedsTwoTiers) {
  auto cpu = find_device("cpu");
  bool has_hbm = false;
  for (const auto& node : host_topology().numa_nodes) has_hbm = has_hbm || node.high_bandwidth;
  StreamOptions o = small(4096);
  o.config.tier = MemoryTier::Ddr;
  if (has_hbm) {
    EXPECT_NO_THROW(run_stream(*cpu, o));
  } else {
    try {
      run_stream(*cpu, o);
      FAIL() << "--tier ddr accepted on a single-tier machine";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("single memory tier"), std::string::npos) << e.what();
    }
  }
  o.config.tier = MemoryTier::Hbm;
  o.config.numa_node = 0;
  EXPECT_THROW(run_stream(*cpu, o), UsageError);  // --numa and --tier together
}

}  // namespace
}  // namespace conveyor::test
