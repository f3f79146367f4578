// STREAM through the driver on every device: every kernel of every variant, validated against gold
// values on small arrays (--allow-small), and the CPU's threads, bindings and placements.
#include <gtest/gtest.h>

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
