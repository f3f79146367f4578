#include "device/trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "device/virtual_clock.hpp"

namespace conveyor::device {

double Trace::now_us() const {
  // A thread that owes time (a synchronous copy under a lock) is at the end of what it owes.
  if (clock_) return clock_->thread_now_s() * 1e6;
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - epoch_)
      .count();
}

void Trace::name_process(int pid, std::string name) {
  std::lock_guard lock(mutex_);
  processes_.push_back({pid, 0, std::move(name)});
}

void Trace::name_track(int pid, int tid, std::string name) {
  std::lock_guard lock(mutex_);
  tracks_.push_back({pid, tid, std::move(name)});
}

void Trace::add(int pid, int tid, std::string_view name, std::string_view cat, double start_us,
                double end_us) {
  std::lock_guard lock(mutex_);
  events_.push_back({pid, tid, std::string(name), std::string(cat), start_us,
                     end_us > start_us ? end_us - start_us : 0.0});
}

void Trace::write(const std::string& path, const std::string& command) const {
  nlohmann::json events = nlohmann::json::array();
  {
    std::lock_guard lock(mutex_);
    for (const auto& p : processes_)
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", p.pid},
                        {"tid", 0},
                        {"args", {{"name", p.name}}}});
    for (const auto& t : tracks_)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", t.pid},
                        {"tid", t.tid},
                        {"args", {{"name", t.name}}}});
    for (const auto& e : events_)
      events.push_back({{"ph", "X"},
                        {"name", e.name},
                        {"cat", e.cat},
                        {"pid", e.pid},
                        {"tid", e.tid},
                        {"ts", e.ts},
                        {"dur", e.dur}});
  }
  nlohmann::json doc = {{"conveyor", std::string(kConveyorVersion)},
                        {"command", command},
                        {"displayTimeUnit", "ms"},
                        {"traceEvents", std::move(events)}};
  write_file_whole(path, doc.dump() + "\n", "the trace");
}

}  // namespace conveyor::device
