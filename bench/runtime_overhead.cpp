// Per-task overhead of the Conveyor runtime: empty CPU tasks with 0, 1 or 4 data (ReadWrite, so
// tasks on the same data form a chain, as in StarPU's tasks_overhead with -b), submitted then
// waited for. Prints the same figures as StarPU's tasks_overhead so that bench/runtime_vs_starpu.py
// can set them side by side.
//
//   bench_runtime_overhead -i 100000 -b 1 [--cpus N]
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"

// Counts heap allocations, to show that submitting and running tasks allocates nothing once the
// task pool is warm (no per-task heap churn on hot paths: docs/architecture.md).
static std::atomic<long> g_allocations{0};
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

int main(int argc, char** argv) {
  long tasks = 100000;
  int buffers = 0, cpus = -1;
  CLI::App app("Empty tasks, each with `buffers` data in ReadWrite; prints us per task.");
  app.add_option("-i", tasks, "Tasks (default 100000)")->check(CLI::Range(1L, 1L << 40));
  app.add_option("-b", buffers, "Data per task, 0-8 (default 0)")->check(CLI::Range(0, 8));
  app.add_option("--cpus", cpus, "CPU workers (default one per core)")
      ->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  try {
    conveyor::RuntimeOptions options;
    options.cpus = cpus;
    conveyor::Runtime rt(options);
    std::vector<float> storage(16 * buffers);
    std::vector<conveyor::DataAccess> accesses;
    for (int b = 0; b < buffers; ++b)
      accesses.push_back(
          {rt.register_vector(storage.data() + 16 * b, 16), conveyor::Access::ReadWrite});
    conveyor::Codelet empty("empty");
    empty.cpu([](const conveyor::TaskContext&) {});

    // Warm-up with as many tasks as the timed run: the task pool and the queues grow to their
    // high-water mark here, so that the timed run shows what remains per task.
    for (long k = 0; k < tasks; ++k) rt.submit(empty, accesses);
    rt.wait_all();

    long allocations_before = g_allocations.load();
    auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < tasks; ++k) rt.submit(empty, accesses);
    auto t1 = std::chrono::steady_clock::now();
    rt.wait_all();
    auto t2 = std::chrono::steady_clock::now();
    long allocations = g_allocations.load() - allocations_before;
    double submit = std::chrono::duration<double>(t1 - t0).count();
    double total = std::chrono::duration<double>(t2 - t0).count();
    std::printf("#tasks : %ld\n#buffers : %d\n#workers : %zu\n", tasks, buffers,
                rt.workers().size());
    std::printf("Total submit: %f secs\nPer task submit: %f usecs\n", submit, submit * 1e6 / tasks);
    std::printf("Total: %f secs\nPer task: %f usecs\n", total, total * 1e6 / tasks);
    std::printf("Tasks per second: %.0f\n", tasks / total);
    std::printf("Heap allocations per task: %.4f\n", static_cast<double>(allocations) / tasks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
