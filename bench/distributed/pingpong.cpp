// Per-message overhead of the distributed layer: a ping-pong of empty tasks between two ranks
// (a task on rank 0 reads y and writes x, a task on rank 1 reads x and writes y: every round is two
// tasks and two messages), next to a raw MPI ping-pong of the same bytes, in one run.
//
//   mpirun -np 2 bench_distributed_pingpong [--rounds R] [--bytes B] [--json]
//
// Prints the round-trip time of both and the layer's added time per message ((layer - raw) / 2),
// and the CPU time of the layer's progress threads, busy and then idle for a second (nothing
// posted: only the abort-notice receive is tested).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/distributed.hpp"

namespace {

double raw_pingpong(int rank, int rounds, std::vector<char>& buf) {
  const int n = static_cast<int>(buf.size());
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    if (rank == 0) {
      MPI_Send(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / rounds;
}

}  // namespace

int main(int argc, char** argv) {
  conveyor::MpiSession mpi(&argc, &argv);
  int rounds = 2000;
  std::size_t bytes = 8;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (a == "--bytes" && i + 1 < argc)
      bytes = static_cast<std::size_t>(std::atol(argv[++i]));
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: mpirun -np 2 %s [--rounds R] [--bytes B] [--json]\n", argv[0]);
      return 2;
    }
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || rounds < 1 || bytes < 1) {
    if (rank == 0) std::fprintf(stderr, "bench_distributed_pingpong: needs 2 ranks, R, B >= 1\n");
    return 2;
  }

  std::vector<char> buf(bytes);
  raw_pingpong(rank, rounds / 10 + 1, buf);  // warm the connection
  double raw = raw_pingpong(rank, rounds, buf);

  double layer = 0, cpu = 0, wall = 0, idle = 0;
  {
    conveyor::RuntimeOptions o;
    o.cpus = 1;
    o.pin = false;
    conveyor::Runtime rt(o);
    conveyor::Distributed dist(rt);
    std::vector<char> x(bytes), y(bytes);
    auto dx = dist.register_bytes(rank == 0 ? x.data() : nullptr, 1, bytes, 0, "x");
    auto dy = dist.register_bytes(rank == 1 ? y.data() : nullptr, 1, bytes, 1, "y");
    conveyor::Codelet empty("empty");
    empty.cpu([](const conveyor::TaskContext&) {});
    auto run = [&](int n) {
      for (int r = 0; r < n; ++r) {
        dist.submit(empty, {{dx, conveyor::Access::Write}, {dy, conveyor::Access::Read}});
        dist.submit(empty, {{dy, conveyor::Access::Write}, {dx, conveyor::Access::Read}});
      }
      dist.wait_all();
    };
    run(rounds / 10 + 1);
    dist.reset_stats();
    MPI_Barrier(MPI_COMM_WORLD);
    auto before = dist.stats();
    auto t0 = std::chrono::steady_clock::now();
    run(rounds);
    layer = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / rounds;
    auto after = dist.stats();
    cpu = after.progress_cpu_s - before.progress_cpu_s;
    wall = layer * rounds;
    auto quiet = dist.stats();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto later = dist.stats();
    idle = (later.progress_cpu_s - quiet.progress_cpu_s) /
           (later.progress_wall_s - quiet.progress_wall_s);
    dist.unregister(dx);
    dist.unregister(dy);
  }
  double cpu_max = 0, idle_max = 0;
  MPI_Reduce(&cpu, &cpu_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&idle, &idle_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double added = (layer - raw) / 2;
    if (json)
      std::printf(
          "{\"command\": \"distributed_pingpong\", \"results\": [{\"bytes\": %zu, \"rounds\": %d, "
          "\"raw_rtt_us\": %.3f, \"layer_rtt_us\": %.3f, \"added_per_message_us\": %.3f, "
          "\"progress_cpu_percent\": %.2f, \"idle_progress_cpu_percent\": %.3f}]}\n",
          bytes, rounds, raw * 1e6, layer * 1e6, added * 1e6, 100 * cpu_max / wall, 100 * idle_max);
    else
      std::printf(
          "ping-pong of %zu bytes, %d rounds (2 ranks)\n"
          "  raw MPI round trip          %9.2f us\n"
          "  empty tasks round trip      %9.2f us  (2 tasks + 2 messages)\n"
          "  added per message           %9.2f us\n"
          "  progress thread CPU         %9.1f %% of one core (busiest rank)\n"
          "  progress thread CPU, idle   %9.3f %% of one core\n",
          bytes, rounds, raw * 1e6, layer * 1e6, added * 1e6, 100 * cpu_max / wall, 100 * idle_max);
  }
  return 0;
}
