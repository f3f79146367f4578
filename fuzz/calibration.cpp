// Feeds: any bytes as a calibration file (what `conveyor probe` writes and the schedulers and the
// staged stream read back) through the steps of Calibration::load: JSON parsing, then
// Calibration::from_json (src/probe/calibration.cpp). Only the machine check is left out.
// A bug: a crash or sanitizer report (e.g. a number cast to a type it does not fit); a rejection
// that is not UsageError; an accepted calibration that does not survive a round trip through its
// file (saved as Calibration::save writes it, read again: the same document), or whose lookups
// fail.
#include "conveyor/calibration.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "conveyor/error.hpp"
#include "fuzz_check.hpp"

using conveyor::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // As Calibration::load: a document that is not JSON is refused before from_json.
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  conveyor::Calibration cal;
  try {
    cal = conveyor::Calibration::from_json(doc, "fuzz.json");
  } catch (const conveyor::UsageError&) {
    return 0;
  }
  const nlohmann::json written = cal.to_json();
  try {
    const conveyor::Calibration again =
        conveyor::Calibration::from_json(nlohmann::json::parse(written.dump(1)), "again.json");
    check(again.to_json() == written, "a calibration changed in a write-read round trip");
  } catch (const conveyor::UsageError&) {
    check(false, "a calibration that was accepted is refused once written again");
  }
  for (const auto& e : cal.entries) {
    check(cal.find(e.device, e.model) != nullptr, "find() misses an entry");
    (void)e.predict_task_s(std::uint64_t{1} << 20);
  }
  if (cal.staging)
    for (const auto& m : cal.staging->movers)
      check(cal.staging->find_mover(m.mover) != nullptr, "find_mover() misses a mover");
  return 0;
}
