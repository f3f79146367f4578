// Per-task overhead of the C interface next to the C++ API, in one run: empty host tasks with
// `buffers` data in ReadWrite (C: registered ranges named in out_deps), submitted then waited for,
// as bench/runtime_overhead.cpp does. Rounds alternate between the two APIs and the best round of
// each is reported, so that both see the same machine state. Target: the C layer adds <= 0.1 us.
//
//   bench_capi_overhead [-i tasks] [-b buffers] [--cpus N] [--rounds R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "conveyor/conveyor.h"
#include "conveyor/runtime.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The C++ API: one round of `tasks` empty tasks, seconds from the first submit to wait_all.
double cpp_round(conveyor::Runtime& rt, const conveyor::Codelet& empty,
                 const std::vector<conveyor::DataAccess>& accesses, long tasks) {
  auto start = Clock::now();
  for (long k = 0; k < tasks; ++k) rt.submit(empty, accesses);
  rt.wait_all();
  return seconds_since(start);
}

int nothing(void* const*, int) { return 0; }

// The C API: the same with host tasklets.
double c_round(conveyor_runtime* rt, std::vector<void*>& deps, long tasks) {
  auto start = Clock::now();
  for (long k = 0; k < tasks; ++k)
    if (conveyor_tasklet_create(rt, nothing, 0, nullptr, 0, nullptr, static_cast<int>(deps.size()),
                                deps.data()) != CONVEYOR_OK) {
      std::fprintf(stderr, "error: %s\n", conveyor_last_error());
      std::exit(1);
    }
  if (conveyor_wait(rt) != CONVEYOR_OK) {
    std::fprintf(stderr, "error: %s\n", conveyor_last_error());
    std::exit(1);
  }
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  long tasks = 100000;
  int buffers = 1, cpus = 1, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-i" && i + 1 < argc)
      tasks = std::atol(argv[++i]);
    else if (a == "-b" && i + 1 < argc)
      buffers = std::atoi(argv[++i]);
    else if (a == "--cpus" && i + 1 < argc)
      cpus = std::atoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [-i tasks] [-b buffers (0-8)] [--cpus N] [--rounds R]\n",
                   argv[0]);
      return 2;
    }
  }
  if (tasks < 1 || buffers < 0 || buffers > 8 || cpus < 1 || rounds < 1) {
    std::fprintf(stderr, "error: -i >= 1, -b in 0..8, --cpus >= 1, --rounds >= 1\n");
    return 2;
  }
  try {
    conveyor::RuntimeOptions options;
    options.cpus = cpus;
    conveyor::Runtime cpp(options);
    std::vector<float> cpp_storage(16 * buffers), c_storage(16 * buffers);
    std::vector<conveyor::DataAccess> accesses;
    for (int b = 0; b < buffers; ++b)
      accesses.push_back(
          {cpp.register_vector(cpp_storage.data() + 16 * b, 16), conveyor::Access::ReadWrite});
    conveyor::Codelet empty("empty");
    empty.cpu([](const conveyor::TaskContext&) {});

    conveyor_options c_options;
    conveyor_options_init(&c_options);
    c_options.cpus = cpus;
    conveyor_runtime* c = conveyor_runtime_create(&c_options);
    if (!c) throw conveyor::Error(conveyor_last_error());
    std::vector<void*> deps;
    for (int b = 0; b < buffers; ++b) {
      deps.push_back(c_storage.data() + 16 * b);
      conveyor_register(c, deps.back(), 16 * sizeof(float));
    }

    // Warm-up: pools and queues grow to their high-water mark.
    cpp_round(cpp, empty, accesses, tasks);
    c_round(c, deps, tasks);
    double best_cpp = 1e30, best_c = 1e30;
    for (int r = 0; r < rounds; ++r) {
      best_cpp = std::min(best_cpp, cpp_round(cpp, empty, accesses, tasks));
      best_c = std::min(best_c, c_round(c, deps, tasks));
    }
    conveyor_runtime_destroy(c);
    double cpp_us = best_cpp * 1e6 / tasks, c_us = best_c * 1e6 / tasks;
    std::printf("#tasks : %ld\n#buffers : %d\n#cpus : %d\n#rounds : %d (best of each)\n", tasks,
                buffers, cpus, rounds);
    std::printf("%-8s %12s\n", "api", "us_per_task");
    std::printf("%-8s %12.3f\n%-8s %12.3f\n", "c++", cpp_us, "c", c_us);
    std::printf("C API extra per task: %+.3f us (ratio %.3f)\n", c_us - cpp_us, c_us / cpp_us);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
