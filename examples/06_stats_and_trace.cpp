// Statistics (copies per link, allocations, tasks per worker) and a Chrome trace that
// chrome://tracing, Perfetto and `conveyor plot` open.
#include <stdlib.h>  // mkdtemp

#include <conveyor/conveyor.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
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
  // A directory of its own (mkdtemp: a fresh name), so that runs side by side, or a file of the
  // same name the user keeps in /tmp, are left alone.
  std::string dir = (std::filesystem::temp_directory_path() / "conveyor_example_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return 1;
  auto path = std::filesystem::path(dir) / "trace.json";
  rt.write_trace(path.string());
  std::printf("trace written to %s (then removed)\n", path.c_str());
  bool ok = s.tasks == 8 && std::filesystem::file_size(path) > 0;
  std::filesystem::remove_all(dir);
  return ok ? 0 : 1;
}
