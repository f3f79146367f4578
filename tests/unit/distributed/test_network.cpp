// Simulated clusters (issue 27): cluster files are checked strictly, each error naming the file and
// the key; the network model's transfers take exactly latency + bytes / bandwidth and serialize on
// the channels they share (a NIC, a fat tree leaf's uplinks, a torus link), and nowhere else.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "device/simulated/platform.hpp"
#include "distributed/network.hpp"
#include "scratch_dir.hpp"

namespace conveyor::distributed {
namespace {

using nlohmann::json;
using Strings = std::vector<std::string>;

const char* kNode = R"({"name": "n", "host": {"cores": 2, "gflops": {"gemm": 10}},
  "devices": [{"id": "gpu", "memory_gb": 1, "gflops": {"gemm": 100}}],
  "links": [{"between": ["host", "gpu:0"], "gbs": 10}]})";

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

json good_cluster() {
  return json::parse(R"({"name": "c", "description": "d", "nodes": 8, "node": "n.json",
    "network": {"topology": "fat-tree", "nic_gbs": 12.5, "link_gbs": 12.5, "nodes_per_switch": 4,
                "uplinks": 2, "latency_us": 1.5, "hop_latency_us": 0.3, "overhead_us": 1,
                "eager_bytes": 65536}})");
}

class ClusterFile : public ::testing::Test {
 protected:
  void SetUp() override { write(dir_.path("n.json"), kNode); }
  ClusterSpec parse(const json& j) {
    return parse_cluster(j.dump(), "c.json", dir_.dir().string());
  }
  std::string error_of(const json& j) {
    try {
      parse(j);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(accepted)";
  }
  test::ScratchDir dir_;
};

TEST_F(ClusterFile, AGoodFileParses) {
  ClusterSpec c = parse(good_cluster());
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.description, "d");
  EXPECT_EQ(c.nodes, 8);
  EXPECT_EQ(c.node_file, dir_.path("n.json"));
  EXPECT_EQ(c.node.name, "n");
  EXPECT_EQ(c.network.topology, NetworkSpec::Topology::FatTree);
  EXPECT_EQ(c.network.nic_gbs, 12.5);
  EXPECT_EQ(c.network.nodes_per_switch, 4);
  EXPECT_EQ(c.network.uplinks, 2);
  EXPECT_EQ(c.network.hop_latency_us, 0.3);
  EXPECT_EQ(c.network.overhead_us, 1);
  EXPECT_EQ(c.network.eager_bytes, 65536u);

  json torus = good_cluster();
  torus["network"] = {{"topology", "torus"}, {"dims", {2, 4}}, {"nic_gbs", 10}, {"link_gbs", 5}};
  c = parse(torus);
  EXPECT_EQ(c.network.dims, (std::vector<int>{2, 4}));
  EXPECT_EQ(c.network.eager_bytes, 65536u);  // the default
  json crossbar = good_cluster();
  crossbar["network"] = {{"topology", "crossbar"}, {"nic_gbs", 10}, {"eager_bytes", 0}};
  EXPECT_EQ(parse(crossbar).network.topology, NetworkSpec::Topology::Crossbar);
}

TEST_F(ClusterFile, EachErrorNamesTheFileAndTheKey) {
  auto with = [](const std::string& key, json value) {
    json j = good_cluster();
    if (key.rfind("network.", 0) == 0)
      j["network"][key.substr(8)] = value;
    else
      j[key] = value;
    return j;
  };
  auto without = [](const std::string& key) {
    json j = good_cluster();
    if (key.rfind("network.", 0) == 0)
      j["network"].erase(key.substr(8));
    else
      j.erase(key);
    return j;
  };
  // The whole line once; then the key and the reason.
  EXPECT_EQ(error_of(with("network.nic_gbs", -4)),
            "cluster file c.json: 'network.nic_gbs' must not be negative (got -4)");
  const std::vector<std::pair<json, std::string>> cases = {
      {with("colour", "red"), "'colour' is an unknown key"},
      {with("network.colour", "red"), "'network.colour' is an unknown key"},
      {with("nodes", "64"), "'nodes' must be a number"},
      {with("network.nic_gbs", "fast"), "'network.nic_gbs' must be a number"},
      {with("name", 3), "'name' must be a string"},
      {with("network", 3), "'network' must be an object"},
      {without("name"), "'name' is missing"},
      {without("nodes"), "'nodes' is missing"},
      {without("node"), "'node' is missing"},
      {without("network"), "'network' is missing"},
      {without("network.topology"), "'network.topology' is missing"},
      {without("network.nic_gbs"), "'network.nic_gbs' is missing"},
      {without("network.link_gbs"), "'network.link_gbs' is missing"},
      {without("network.nodes_per_switch"), "'network.nodes_per_switch' is missing"},
      {without("network.uplinks"), "'network.uplinks' is missing"},
      {with("network.nic_gbs", 0), "'network.nic_gbs' must be positive (got 0)"},
      {with("network.link_gbs", 0), "'network.link_gbs' must be positive (got 0)"},
      {with("network.link_gbs", -1), "'network.link_gbs' must not be negative (got -1)"},
      {with("network.latency_us", -1), "'network.latency_us' must not be negative (got -1)"},
      {with("network.uplinks", 1.5), "'network.uplinks' must be a whole number"},
      {with("network.uplinks", 5), "'network.uplinks' must be at most nodes_per_switch (4; got 5)"},
      {with("network.eager_bytes", 1.5), "'network.eager_bytes' must be a whole number"},
      {with("network.topology", "ring"),
       "'network.topology' must be crossbar, fat-tree or torus (got 'ring')"},
      {with("network.dims", {2, 4}), "'network.dims' is not used by a fat-tree network"},
      {with("nodes", 5000), "'nodes' must be at most 4096 (got 5000)"},
      {with("nodes", 0), "'nodes' must be positive (got 0)"},
      {with("node", ""), "'node' must name a node platform file"},
  };
  for (const auto& [j, expected] : cases)
    EXPECT_NE(error_of(j).find("cluster file c.json: " + expected), std::string::npos)
        << "expected: " << expected << "\ngot: " << error_of(j);

  json crossbar = good_cluster();
  crossbar["network"]["topology"] = "crossbar";  // still with the fat tree's keys
  EXPECT_NE(error_of(crossbar).find("'network.link_gbs' is not used by a crossbar network"),
            std::string::npos)
      << error_of(crossbar);
  crossbar["network"] = {{"topology", "crossbar"}, {"nic_gbs", 1}, {"uplinks", 2}};
  EXPECT_NE(error_of(crossbar).find("'network.uplinks' is not used by a crossbar network"),
            std::string::npos);

  json torus = good_cluster();
  torus["network"] = {{"topology", "torus"}, {"nic_gbs", 10}, {"link_gbs", 5}};
  EXPECT_NE(error_of(torus).find("'network.dims' is missing"), std::string::npos);
  torus["network"]["dims"] = {2, 2};
  EXPECT_NE(error_of(torus).find("'network.dims' must multiply to 'nodes' (8; got 2x2 = 4)"),
            std::string::npos)
      << error_of(torus);
  torus["network"]["dims"] = {2, 0, 4};
  EXPECT_NE(error_of(torus).find("'network.dims[1]' must be a whole number"), std::string::npos);
  torus["network"]["dims"] = json::array();
  EXPECT_NE(error_of(torus).find("'network.dims' must be a non-empty array"), std::string::npos);
  torus["network"]["dims"] = {8};
  torus["network"]["nodes_per_switch"] = 4;
  EXPECT_NE(error_of(torus).find("'network.nodes_per_switch' is not used by a torus network"),
            std::string::npos);

  EXPECT_NE(error_of(with("node", "missing.json"))
                .find("cluster file c.json: 'node' names a node platform that cannot be used: "
                      "platform file " +
                      dir_.path("missing.json") + ": cannot be read"),
            std::string::npos)
      << error_of(with("node", "missing.json"));
  write(dir_.path("bad.json"), R"({"name": "b", "host": {"cores": -1}})");
  const std::string bad = error_of(with("node", "bad.json"));
  EXPECT_NE(bad.find("cluster file c.json: 'node' names a node platform that cannot be used: "
                     "platform file " +
                     dir_.path("bad.json") + ": 'host.cores' must not be negative"),
            std::string::npos)
      << bad;
  EXPECT_EQ(bad.find('\n'), std::string::npos);

  try {
    parse_cluster("{\"nodes\": ", "c.json", ".");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cluster file c.json: not JSON: ", 0), 0u) << e.what();
  }
}

TEST_F(ClusterFile, TheNodeFileIsRelativeToTheClusterFile) {
  std::filesystem::create_directory(dir_.path("sub"));
  write(dir_.path("sub/node.json"), kNode);
  json j = good_cluster();
  j["node"] = "node.json";
  write(dir_.path("sub/c.json"), j.dump());
  ClusterSpec c = read_cluster(dir_.path("sub/c.json"));
  EXPECT_EQ(c.path, dir_.path("sub/c.json"));
  EXPECT_EQ(c.node_file, dir_.path("sub/node.json"));
  EXPECT_EQ(c.node.devices.size(), 1u);
  j["node"] = dir_.path("n.json");  // absolute: as it is
  write(dir_.path("sub/c.json"), j.dump());
  EXPECT_EQ(read_cluster(dir_.path("sub/c.json")).node_file, dir_.path("n.json"));
  EXPECT_THROW(read_cluster(dir_.path("none.json")), UsageError);
}

TEST_F(ClusterFile, IsClusterFileTellsClusterFromPlatformFiles) {
  write(dir_.path("c.json"), good_cluster().dump());
  write(dir_.path("text.json"), "not JSON");
  write(dir_.path("list.json"), "[1, 2]");
  EXPECT_TRUE(is_cluster_file(dir_.path("c.json")));
  EXPECT_FALSE(is_cluster_file(dir_.path("n.json")));
  EXPECT_FALSE(is_cluster_file(dir_.path("text.json")));
  EXPECT_FALSE(is_cluster_file(dir_.path("list.json")));
  EXPECT_FALSE(is_cluster_file(dir_.path("missing.json")));
}

// Every cluster file in platforms/ parses, its network builds, and each platform file there is
// not taken for a cluster file.
TEST(ShippedClusters, AllParse) {
  Strings clusters;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(CONVEYOR_SOURCE_DIR) + "/platforms")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json") continue;
    if (!is_cluster_file(path)) {
      if (entry.path().filename().string().rfind("cluster", 0) == 0)
        ADD_FAILURE() << path << " is not taken for a cluster file";
      continue;
    }
    clusters.push_back(entry.path().filename().string());
    try {
      ClusterSpec c = read_cluster(path);
      EXPECT_FALSE(c.description.empty()) << path;
      Network net(c.network, c.nodes);
      EXPECT_EQ(net.nodes(), c.nodes) << path;
      EXPECT_GT(net.collective_s(8), 0) << path;
    } catch (const UsageError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  std::sort(clusters.begin(), clusters.end());
  EXPECT_EQ(clusters,
            (Strings{"cluster-64-torus.json", "cluster-64x4xV100.json", "cluster-64xcpu.json",
                     "cluster-vm-epyc2-2ranks.json", "cluster-vm-epyc2-4ranks.json"}));
}

// ---- the network model --------------------------------------------------------------------------

NetworkSpec crossbar(double nic_gbs = 10, double latency_us = 2) {
  NetworkSpec s;
  s.topology = NetworkSpec::Topology::Crossbar;
  s.nic_gbs = nic_gbs;
  s.latency_us = latency_us;
  s.hop_latency_us = 0.5;
  return s;
}

NetworkSpec fat_tree(int nodes_per_switch, int uplinks) {
  NetworkSpec s = crossbar();
  s.topology = NetworkSpec::Topology::FatTree;
  s.link_gbs = 5;  // slower than the NICs: a cross-leaf message runs at the cable's rate
  s.nodes_per_switch = nodes_per_switch;
  s.uplinks = uplinks;
  return s;
}

NetworkSpec torus(std::vector<int> dims) {
  NetworkSpec s = crossbar();
  s.topology = NetworkSpec::Topology::Torus;
  s.link_gbs = 5;
  s.dims = std::move(dims);
  return s;
}

TEST(Network, OneMessageTakesLatencyPlusBytesOverBandwidth) {
  Network net(crossbar(10, 2), 4);
  auto t = net.transfer(0, 1, 1000000, 0.5);
  EXPECT_DOUBLE_EQ(t.start_s, 0.5);
  EXPECT_DOUBLE_EQ(t.end_s, 0.5 + 2e-6 + 1e6 / 10e9);
  EXPECT_EQ(net.hops(0, 1), 1);
  EXPECT_DOUBLE_EQ(net.latency_s(0, 1), 2e-6);
  EXPECT_EQ(net.route(0, 1), (Strings{"nic 0 out", "nic 1 in"}));
  EXPECT_EQ(net.hops(2, 2), 0);
  EXPECT_THROW(net.transfer(1, 1, 8, 0), Error);
  EXPECT_THROW(net.transfer(0, 4, 8, 0), Error);
  EXPECT_THROW(net.hops(-1, 0), Error);
}

// A message holds its NICs (and cables) for its whole duration, in the earliest window in which
// all of them are free: a later reservation may take a gap before an earlier one (first fit).
TEST(Network, MessagesSerializeOnASharedNicOnly) {
  Network net(crossbar(10, 2), 4);
  const double one = 2e-6 + 1e6 / 10e9;
  auto a = net.transfer(0, 1, 1000000, 0);
  auto b = net.transfer(0, 2, 1000000, 0);  // the same sender: waits for its NIC
  EXPECT_DOUBLE_EQ(b.start_s, a.end_s);
  EXPECT_DOUBLE_EQ(b.end_s, 2 * one);
  auto c = net.transfer(3, 2, 1000000, 0);  // b's receiver is free until b starts: c fits there
  EXPECT_DOUBLE_EQ(c.start_s, 0);
  EXPECT_DOUBLE_EQ(c.end_s, b.start_s);
  auto h = net.transfer(1, 2, 1000000, 0);  // receiver busy with c, then b: after both
  EXPECT_DOUBLE_EQ(h.start_s, b.end_s);
  auto i = net.transfer(3, 1, 2000000, 0);  // 3 out busy with c, 1 in with a: after both
  EXPECT_DOUBLE_EQ(i.start_s, a.end_s);

  Network other(crossbar(10, 2), 4);  // disjoint pairs: a crossbar has full bisection
  auto d = other.transfer(0, 1, 1000000, 0);
  auto e = other.transfer(2, 3, 1000000, 0);
  auto f = other.transfer(1, 0, 1000000, 0);  // the other direction of the same NICs
  EXPECT_DOUBLE_EQ(d.start_s, 0);
  EXPECT_DOUBLE_EQ(e.start_s, 0);
  EXPECT_DOUBLE_EQ(f.start_s, 0);
  auto g = other.transfer(0, 1, 1000000, 5);  // ready after the channels are free
  EXPECT_DOUBLE_EQ(g.start_s, 5);
}

TEST(Network, FatTreeUplinksCarryThatManyMessagesAtOnce) {
  Network net(fat_tree(4, 2), 8);  // leaves {0..3}, {4..7}; 2 uplinks each
  EXPECT_EQ(net.hops(0, 3), 1);
  EXPECT_EQ(net.hops(0, 4), 3);
  EXPECT_DOUBLE_EQ(net.latency_s(0, 4), 2e-6 + 2 * 0.5e-6);
  EXPECT_EQ(net.route(0, 3), (Strings{"nic 0 out", "nic 3 in"}));
  EXPECT_EQ(net.route(0, 4), (Strings{"nic 0 out", "leaf 0 up 0", "leaf 1 down 0", "nic 4 in"}));

  const double cross = 3e-6 + 1e6 / 5e9;  // the cable's rate, not the NIC's
  auto a = net.transfer(0, 4, 1000000, 0);
  EXPECT_DOUBLE_EQ(a.end_s, cross);
  EXPECT_EQ(net.route(1, 5), (Strings{"nic 1 out", "leaf 0 up 1", "leaf 1 down 1", "nic 5 in"}));
  auto b = net.transfer(1, 5, 1000000, 0);  // the second cable: in parallel
  EXPECT_DOUBLE_EQ(b.start_s, 0);
  auto c = net.transfer(2, 6, 1000000, 0);  // both cables busy: the third waits
  EXPECT_DOUBLE_EQ(c.start_s, a.end_s);
  EXPECT_DOUBLE_EQ(c.end_s, 2 * cross);
  auto d = net.transfer(3, 7, 1000000, 0);  // the cable b used, free next
  EXPECT_DOUBLE_EQ(d.start_s, b.end_s);
  auto e = net.transfer(5, 6, 1000000, 0);  // within a leaf: only NICs; 6 in is free before c
  EXPECT_DOUBLE_EQ(e.start_s, 0);
  EXPECT_DOUBLE_EQ(e.end_s - e.start_s, 2e-6 + 1e6 / 10e9);
  auto g = net.transfer(7, 6, 1000000, 0);  // 6 in: e, then a gap too short, then c: after c
  EXPECT_DOUBLE_EQ(g.start_s, c.end_s);
  auto f = net.transfer(4, 0, 1000000, 0);  // the other direction: other cables
  EXPECT_DOUBLE_EQ(f.start_s, 0);
}

TEST(Network, TorusRoutesByDimensionTheShorterWayRound) {
  Network net(torus({4, 3}), 12);  // node n at (n % 4, n / 4)
  EXPECT_EQ(net.route(0, 3), (Strings{"nic 0 out", "torus (0,0) -x", "nic 3 in"}));  // wraps
  EXPECT_EQ(net.hops(0, 3), 1);
  EXPECT_EQ(net.route(0, 2),  // a tie: the positive way
            (Strings{"nic 0 out", "torus (0,0) +x", "torus (1,0) +x", "nic 2 in"}));
  EXPECT_EQ(net.route(0, 5),  // x first, then y
            (Strings{"nic 0 out", "torus (0,0) +x", "torus (1,0) +y", "nic 5 in"}));
  EXPECT_EQ(net.route(5, 0),
            (Strings{"nic 5 out", "torus (1,1) -x", "torus (0,1) -y", "nic 0 in"}));
  EXPECT_EQ(net.route(0, 8), (Strings{"nic 0 out", "torus (0,0) -y", "nic 8 in"}));
  EXPECT_EQ(net.hops(0, 10), 3);  // (2,2): 2 in x, 1 in y (wrapping)
  EXPECT_EQ(net.route(0, 10).size(), 5u);
  EXPECT_DOUBLE_EQ(net.latency_s(0, 10), 2e-6 + 2 * 0.5e-6);
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      if (a != b) EXPECT_EQ(net.route(a, b).size(), net.hops(a, b) + 2u) << a << " -> " << b;

  // 0 -> 2 and 1 -> 3 both take (1,0) +x: the second waits; 0 -> 1 and 2 -> 3 share nothing.
  const double two = 2e-6 + 0.5e-6 + 1e6 / 5e9;
  auto a = net.transfer(0, 2, 1000000, 0);
  EXPECT_DOUBLE_EQ(a.end_s, two);
  auto b = net.transfer(1, 3, 1000000, 0);
  EXPECT_DOUBLE_EQ(b.start_s, a.end_s);
  Network other(torus({4, 3}), 12);
  EXPECT_DOUBLE_EQ(other.transfer(0, 1, 1000000, 0).start_s, 0);
  EXPECT_DOUBLE_EQ(other.transfer(2, 3, 1000000, 0).start_s, 0);

  // 3D names, and a torus used in part: routes may cross positions of no node in use.
  Network cube(torus({2, 2, 2}), 6);
  EXPECT_EQ(cube.route(0, 5),
            (Strings{"nic 0 out", "torus (0,0,0) +x", "torus (1,0,0) +z", "nic 5 in"}));
  EXPECT_THROW(Network(torus({2, 2}), 5), UsageError);
  EXPECT_THROW(Network(fat_tree(4, 5), 8), UsageError);
}

TEST(Network, IsDeterministic) {
  auto run = [](const NetworkSpec& spec, int nodes) {
    Network net(spec, nodes);
    std::mt19937 random(7);
    std::vector<double> times;
    for (int i = 0; i < 500; ++i) {
      int from = static_cast<int>(random() % nodes), to = static_cast<int>(random() % nodes);
      if (from == to) continue;
      auto t = net.transfer(from, to, random() % 10000000, (random() % 1000) * 1e-5);
      times.push_back(t.start_s);
      times.push_back(t.end_s);
    }
    return times;
  };
  for (const auto& [spec, nodes] : std::vector<std::pair<NetworkSpec, int>>{
           {crossbar(), 16}, {fat_tree(4, 2), 16}, {torus({4, 4}), 16}}) {
    auto first = run(spec, nodes);
    EXPECT_GT(first.size(), 900u);
    EXPECT_EQ(first, run(spec, nodes));
  }
}

TEST(Network, ConcurrentTransfersOnOneNicSerializeExactly) {
  Network net(crossbar(10, 2), 9);
  std::vector<std::thread> threads;
  for (int t = 1; t <= 8; ++t)
    threads.emplace_back([&net, t] {
      for (int i = 0; i < 100; ++i) net.transfer(0, t, 1000000, 0);
    });
  for (auto& t : threads) t.join();
  // 800 messages through nic 0 out, back to back, whatever the threads' order.
  auto last = net.transfer(0, 1, 0, 0);
  EXPECT_NEAR(last.start_s, 800 * (2e-6 + 1e6 / 10e9), 1e-9);
}

TEST(Network, CollectivesTakeLog2NodesRounds) {
  NetworkSpec spec = crossbar(10, 2);
  spec.overhead_us = 1;
  const double round = 2e-6 + 2e-6 + 1000 / 10e9;
  EXPECT_EQ(Network(spec, 1).collective_s(1000), 0);
  EXPECT_DOUBLE_EQ(Network(spec, 2).collective_s(1000), round);
  EXPECT_DOUBLE_EQ(Network(spec, 4).collective_s(1000), 2 * round);
  EXPECT_DOUBLE_EQ(Network(spec, 5).collective_s(1000), 3 * round);
  EXPECT_DOUBLE_EQ(Network(spec, 64).collective_s(1000), 6 * round);
  // The largest latency: across leaves on a fat tree, the diameter on a torus.
  NetworkSpec fat = fat_tree(4, 2);
  fat.overhead_us = 1;
  EXPECT_DOUBLE_EQ(Network(fat, 4).collective_s(0), 2 * (2e-6 + 2e-6));
  EXPECT_DOUBLE_EQ(Network(fat, 8).collective_s(0), 3 * (3e-6 + 2e-6));
  NetworkSpec ring = torus({8});
  EXPECT_DOUBLE_EQ(Network(ring, 8).collective_s(0), 3 * (2e-6 + 3 * 0.5e-6));  // 4 hops
  EXPECT_DOUBLE_EQ(Network(ring, 3).collective_s(0), 2 * (2e-6 + 0.5e-6));      // 0 -> 2: 2 hops
  // The network is not reserved by it.
  Network net(spec, 4);
  net.collective_s(1000000);
  EXPECT_DOUBLE_EQ(net.transfer(0, 1, 0, 0).start_s, 0);
}

}  // namespace
}  // namespace conveyor::distributed
