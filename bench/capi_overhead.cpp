// Per-task overhead of the C interface next to the C++ API, in one run: empty host tasks with
// `buffers` data in ReadWrite (C: registered ranges named in out_deps), submitted then waited for,
// as bench/runtime_overhead.cpp does. Rounds alternate between the two APIs and the best round of
// each is reported, so that both see the same machine state. Two figures per API: the wall time
// from the first submit to the end of the wait, and the submitting thread's CPU time in the submit
// loop (where the C layer does its work; less disturbed by other load than wall time). Target: the
// C layer adds <= 0.1 us per task.
//
//   bench_capi_overhead [-i tasks] [-b buffers] [--cpus N] [--rounds R]
#include <time.h>

#include <CLI/CLI.hpp>
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

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Round {
  double wall = 1e30;        ///< first submit to the end of the wait, seconds
  double submit_cpu = 1e30;  ///< this thread's CPU seconds in the submit loop

  void keep_best(const Round& r) {
    wall = std::min(wall, r.wall);
    submit_cpu = std::min(submit_cpu, r.submit_cpu);
  }
};

// Times `submit_all` (submits one round) followed by `wait`.
template <typename Submit, typename Wait>
Round time_round(Submit&& submit_all, Wait&& wait) {
  auto start = Clock::now();
  double cpu0 = thread_cpu_seconds();
  submit_all();
  double cpu1 = thread_cpu_seconds();
  wait();
  return {std::chrono::duration<double>(Clock::now() - start).count(), cpu1 - cpu0};
}

int nothing(void* const*, int) { return 0; }

void check(conveyor_status status) {
  if (status == CONVEYOR_OK) return;
  std::fprintf(stderr, "error: %s\n", conveyor_last_error());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  long tasks = 100000;
  int buffers = 1, cpus = 1, rounds = 5;
  CLI::App app("Per-task overhead of the C interface next to the C++ API (empty host tasks).");
  app.add_option("-i", tasks, "Tasks per round (default 100000)")->check(CLI::Range(1L, 1L << 40));
  app.add_option("-b", buffers, "Data per task, 0-8 (default 1)")->check(CLI::Range(0, 8));
  app.add_option("--cpus", cpus, "CPU workers (default 1)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--rounds", rounds, "Rounds per API; the best is reported (default 5)")
      ->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
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
      check(conveyor_register(c, deps.back(), 16 * sizeof(float)));
    }

    auto cpp_round = [&] {
      return time_round(
          [&] {
            for (long k = 0; k < tasks; ++k) cpp.submit(empty, accesses);
          },
          [&] { cpp.wait_all(); });
    };
    auto c_round = [&] {
      return time_round(
          [&] {
            for (long k = 0; k < tasks; ++k)
              check(conveyor_tasklet_create(c, nothing, 0, nullptr, 0, nullptr,
                                            static_cast<int>(deps.size()), deps.data()));
          },
          [&] { check(conveyor_wait(c)); });
    };
    // Warm-up: pools and queues grow to their high-water mark.
    cpp_round();
    c_round();
    Round best_cpp, best_c;
    for (int r = 0; r < rounds; ++r) {
      best_cpp.keep_best(cpp_round());
      best_c.keep_best(c_round());
    }
    conveyor_runtime_destroy(c);

    auto us = [&](double seconds) { return seconds * 1e6 / static_cast<double>(tasks); };
    std::printf("#tasks : %ld\n#buffers : %d\n#cpus : %d\n#rounds : %d (best of each)\n", tasks,
                buffers, cpus, rounds);
    std::printf("%-6s %12s %24s\n", "api", "us_per_task", "submit_cpu_us_per_task");
    std::printf("%-6s %12.3f %24.3f\n", "c++", us(best_cpp.wall), us(best_cpp.submit_cpu));
    std::printf("%-6s %12.3f %24.3f\n", "c", us(best_c.wall), us(best_c.submit_cpu));
    std::printf("C API extra per task: %+.3f us wall, %+.3f us submit CPU\n",
                us(best_c.wall) - us(best_cpp.wall),
                us(best_c.submit_cpu) - us(best_cpp.submit_cpu));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
