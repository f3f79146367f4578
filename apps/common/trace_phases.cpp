#include "common/trace_phases.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "conveyor/records.hpp"

namespace conveyor::apps::common {
namespace {

// The runtime numbers the host 1 and devices from 2 (docs/runtime.md, trace); 0 is free for the
// application.
constexpr int kPhasePid = 0;
constexpr int kPhaseTid = 1;

}  // namespace

void add_phases_to_trace(const std::string& path, const std::string& app,
                         const std::vector<TracePhase>& phases) {
  nlohmann::json doc;
  {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the trace '" + path + "' back to add the phases");
    doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw Error("the trace '" + path + "' is not a Chrome trace object");
  // The machine, as every result records it: a timeline is read against the cores it ran on.
  if (!doc.contains("machine")) doc["machine"] = machine_record();
  auto& events = doc["traceEvents"];
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", kPhasePid},
                    {"tid", 0},
                    {"args", {{"name", app}}}});
  events.push_back({{"ph", "M"},
                    {"name", "thread_name"},
                    {"pid", kPhasePid},
                    {"tid", kPhaseTid},
                    {"args", {{"name", "phases"}}}});
  for (const auto& p : phases)
    events.push_back({{"ph", "X"},
                      {"name", p.name},
                      {"cat", "phase"},
                      {"pid", kPhasePid},
                      {"tid", kPhaseTid},
                      {"ts", p.start_us},
                      {"dur", p.end_us > p.start_us ? p.end_us - p.start_us : 0.0},
                      {"args", {{"timed", p.timed}}}});
  write_file_whole(path, doc.dump() + "\n", "the trace");
}

}  // namespace conveyor::apps::common
