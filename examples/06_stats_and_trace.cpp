// Statistics (copies per link, allocations, tasks per worker) and a Chrome trace that
// chrome://tracing, Perfetto and `conveyor plot` open.
#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <filesystem>
#include <vector>

int main() {
  conveyor::RuntimeOptions options;
  options.cpus = 2;
  options.trace = true;
  conveyor::Runtime rt(options);
  std::vector<int> v(256, 0);
  conveyor::Data d = rt.register_vector(v.data(), v.size(), "v");
  conveyor::Codelet touch("touch");
  touch.cpu([](const conveyor::TaskContext& t) { t.data<int>(0)[0] += 1; });
  for (int k = 0; k < 8; ++k) rt.submit(touch, {{d, conveyor::Access::ReadWrite}});
  rt.wait_all();

  conveyor::RuntimeStats s = rt.stats();
  std::printf("tasks %llu, copies %llu\n", static_cast<unsigned long long>(s.tasks),
              static_cast<unsigned long long>(s.total_copies()));
  for (const auto& w : s.workers)
    std::printf("  %-14s %llu tasks\n", w.name.c_str(), static_cast<unsigned long long>(w.tasks));
  auto path = std::filesystem::temp_directory_path() / "conveyor_example_trace.json";
  rt.write_trace(path.string());
  std::printf("trace written to %s\n", path.c_str());
  bool ok = s.tasks == 8 && std::filesystem::file_size(path) > 0;
  std::filesystem::remove(path);
  return ok ? 0 : 1;
}
