// The runtime's own cost per device task: tiny tasks on one device, each ReadWrite on one of
// `width` small data, so that width 1 is one chain (each task waits for the one before: what
// run-ahead shortens) and a larger width gives that many independent chains (what the tasks kept
// in flight cover). The kernels do next to nothing (OpenCL: one work-item adds 1; CUDA: nothing is
// enqueued, so the figure is the runtime's and the driver's, without a kernel launch), so the time
// per task is what the runtime adds: launches, completions, the host's wake-ups. Median of
// `repeat` timed runs after an untimed one; one JSON line.
//
//   bench_device_task_cost --device opencl:0 -i 20000 --width 1 --run-ahead 0
//   bench_device_task_cost --device opencl:0 --width 8 --in-flight 4
#include <CL/cl.h>
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"

namespace {

// The OpenCL calls, from the process (the OpenCL backend has loaded them when the device exists):
// this program links Conveyor alone.
template <typename Fn>
Fn* cl_entry(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) throw conveyor::DeviceError(std::string(name) + " not found in the process");
  return reinterpret_cast<Fn*>(f);
}

const char* kSource = "__kernel void tick(__global int* x) { x[0] += 1; }";

conveyor::Codelet tick_codelet() {
  conveyor::Codelet c("tick");
  c.cpu([](const conveyor::TaskContext& t) { t.data<int>(0)[0] += 1; });
  c.cuda([](const conveyor::TaskContext&) {});  // nothing enqueued: the runtime's cost alone
  c.opencl({.source = kSource, .kernel = "tick"}, [](const conveyor::TaskContext& t) {
    static auto* set_arg = cl_entry<decltype(clSetKernelArg)>("clSetKernelArg");
    static auto* enqueue = cl_entry<decltype(clEnqueueNDRangeKernel)>("clEnqueueNDRangeKernel");
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0));
    std::size_t one = 1;
    if (set_arg(k, 0, sizeof x, &x) != CL_SUCCESS ||
        enqueue(static_cast<cl_command_queue>(t.opencl_queue()), k, 1, nullptr, &one, &one, 0,
                nullptr, nullptr) != CL_SUCCESS)
      throw conveyor::DeviceError("tick: enqueueing the kernel failed");
  });
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "opencl:0";
  long tasks = 20000;
  int width = 1, repeat = 3;
  int in_flight = conveyor::RuntimeOptions::kInFlightAuto;
  int run_ahead = conveyor::RuntimeOptions::kRunAheadAuto;
  CLI::App app(
      "Tiny tasks on one device, `width` independent chains of them; prints the runtime's cost "
      "per task (docs/results/runtime.md).");
  app.add_option("--device", device, "The device, e.g. opencl:0 or cuda:0 (default opencl:0)");
  app.add_option("-i", tasks, "Tasks per run (default 20000)")->check(CLI::Range(1L, 1L << 30));
  app.add_option("--width", width, "Independent chains the tasks go round (default 1: one chain)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--in-flight", in_flight,
                 "Tasks the device keeps enqueued (default: the runtime's, by device count)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--run-ahead", run_ahead, "Run-ahead depth, 0 = off (default: the runtime's)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--repeat", repeat, "Timed runs; the median is printed (default 3)")
      ->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  try {
    conveyor::RuntimeOptions options;
    options.cpus = 0;
    options.devices = {device};
    options.device_tasks_in_flight = in_flight;
    options.run_ahead = run_ahead;
    conveyor::Runtime rt(options);
    std::vector<int> values(static_cast<std::size_t>(width) * 16, 0);
    std::vector<conveyor::Data> data;
    for (int w = 0; w < width; ++w) data.push_back(rt.register_vector(values.data() + 16 * w, 16));
    const conveyor::Codelet tick = tick_codelet();
    auto run = [&] {
      auto start = std::chrono::steady_clock::now();
      for (long k = 0; k < tasks; ++k)
        rt.submit(tick, {{data[static_cast<std::size_t>(k % width)], conveyor::Access::ReadWrite}});
      rt.wait_all();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    run();  // untimed: program build, allocations, the task pool's growth
    std::vector<double> us;
    for (int r = 0; r < repeat; ++r) us.push_back(run() * 1e6 / static_cast<double>(tasks));
    std::vector<double> sorted = us;
    std::sort(sorted.begin(), sorted.end());
    const conveyor::RuntimeOptions& used = rt.options();
    // The driver's own measure of a completion's round trip (an empty notify, when it opened),
    // beside what a chain pays per task.
    double round_trip_us = -1;
    for (const auto& w : rt.stats().workers)
      if (w.round_trip_seconds >= 0) round_trip_us = w.round_trip_seconds * 1e6;
    std::printf(
        "{\"bench\": \"device_task_cost\", \"device\": \"%s\", \"tasks\": %ld, \"width\": %d, "
        "\"in_flight\": %d, \"run_ahead\": \"%s\", \"round_trip_us\": %.3f, \"us_per_task\": %.3f, "
        "\"runs_us\": [",
        device.c_str(), tasks, width, used.device_tasks_in_flight,
        run_ahead == conveyor::RuntimeOptions::kRunAheadAuto ? "auto"
                                                             : std::to_string(run_ahead).c_str(),
        round_trip_us, sorted[sorted.size() / 2]);
    for (std::size_t r = 0; r < us.size(); ++r) std::printf("%s%.3f", r ? ", " : "", us[r]);
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_device_task_cost: %s\n", e.what());
    return 2;
  }
  return 0;
}
