// Peak memory of a large graph submitted at once behind one slow first task, against the same
// tasks submitted in waves (wait_all every --wave tasks), and how fast they ran: what bounded
// submission (RuntimeOptions::max_submitted) buys. One configuration per process (peak RSS is
// per process); bench/submission_memory.sh runs them side by side.
//
//   bench_submission_memory --tasks 3000000 --mode once [--max-submitted N] [--hold-ms 500]
//   bench_submission_memory --tasks 3000000 --mode waves --wave 100000
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "conveyor/runtime.hpp"

int main(int argc, char** argv) {
  long tasks = 3'000'000, wave = 100'000;
  std::uint64_t max_submitted = 0;
  int hold_ms = 500, cpus = -1;
  std::string mode = "once";
  CLI::App app("Peak RSS and rate of many small tasks behind one slow first task.");
  app.add_option("--tasks", tasks, "Tasks (default 3000000)")->check(CLI::Range(2L, 1L << 40));
  app.add_option("--mode", mode, "once (all submitted, then wait_all) or waves")
      ->check(CLI::IsMember({"once", "waves"}));
  app.add_option("--wave", wave, "Tasks per wave (default 100000)")
      ->check(CLI::Range(1L, 1L << 40));
  app.add_option("--max-submitted", max_submitted,
                 "RuntimeOptions::max_submitted (default 0: the runtime's default)");
  app.add_option("--hold-ms", hold_ms, "The first task's time (default 500)")
      ->check(CLI::Range(0, 600000));
  app.add_option("--cpus", cpus, "CPU workers (default one per core)")->check(CLI::Range(1, 4096));
  CLI11_PARSE(app, argc, argv);
  try {
    conveyor::RuntimeOptions options;
    options.cpus = cpus;
    options.max_submitted = max_submitted;
    conveyor::Runtime rt(options);
    // 64 chains: task k > 0 adds one to element k mod 64; the first task writes them all.
    std::vector<long> values(64, 0);
    std::vector<conveyor::Data> data;
    std::vector<conveyor::DataAccess> all;
    for (auto& v : values) {
      data.push_back(rt.register_vector(&v, 1));
      all.push_back({data.back(), conveyor::Access::ReadWrite});
    }
    conveyor::Codelet hold("hold"), add("add");
    hold.cpu([hold_ms](const conveyor::TaskContext&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    });
    add.cpu([](const conveyor::TaskContext& t) { ++*t.data<long>(0); });

    auto t0 = std::chrono::steady_clock::now();
    long submitted = 0;
    auto submit_until = [&](long end) {
      for (; submitted < end; ++submitted) {
        if (submitted == 0) {
          rt.submit(hold, all);
          continue;
        }
        rt.submit(add, {{data[submitted % 64], conveyor::Access::ReadWrite}});
      }
    };
    if (mode == "once") {
      submit_until(tasks);
      rt.wait_all();
    } else {
      while (submitted < tasks) {
        submit_until(std::min(tasks, submitted + wave));
        rt.wait_all();
      }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    long sum = 0;
    for (long v : values) sum += v;
    if (sum != tasks - 1) {
      std::fprintf(stderr, "bench_submission_memory: wrong result %ld (expected %ld)\n", sum,
                   tasks - 1);
      return 1;
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    conveyor::RuntimeStats s = rt.stats();
    std::printf(
        "{\"mode\": \"%s\", \"tasks\": %ld, \"wave\": %ld, \"max_submitted\": %llu, "
        "\"submit_waits\": %llu, \"peak_rss_mb\": %.1f, \"seconds\": %.3f, "
        "\"tasks_per_s_after_hold\": %.0f}\n",
        mode.c_str(), tasks, mode == "waves" ? wave : 0L,
        static_cast<unsigned long long>(s.max_submitted),
        static_cast<unsigned long long>(s.submit_waits), usage.ru_maxrss / 1024.0, seconds,
        (tasks - 1) / std::max(1e-9, seconds - hold_ms * 1e-3));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_submission_memory: %s\n", e.what());
    return 1;
  }
}
