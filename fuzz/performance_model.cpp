// Feeds: any bytes as a performance-models file (perfmodels.json, which the model schedulers read
// at start and write at the end) through the steps of PerfModels::load: JSON parsing, then
// PerfModels::from_json (src/runtime/perfmodel/models.cpp). Only the machine check is left out.
// Then what a runtime does with loaded models: predictions for every history, one more sample
// recorded, the file written again.
// A bug: a crash or sanitizer report (e.g. a number cast to a type it does not fit); a rejection
// that is not UsageError; accepted models that do not survive a round trip through their file
// (written, read again: the same document, up to the last bits of the numbers the file keeps as
// derived values), or whose listings disagree (rows() against samples()).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "conveyor/error.hpp"
#include "fuzz_check.hpp"
#include "runtime/perfmodel/models.hpp"

namespace {

using conveyor::fuzz::check;
using conveyor::runtime::perfmodel::PerfModels;
using nlohmann::json;

// Equal documents, numbers within a relative 1e-9: the file keeps a history's deviation, which
// restore() turns back into a sum of squares, so its last bits may move once.
bool same(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x == y || std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same(*ia, *ib)) return false;
    return true;
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

PerfModels reread(const json& written, const char* what) {
  try {
    return PerfModels::from_json(json::parse(written.dump(1)), "again.json");
  } catch (const conveyor::UsageError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    check(false, what);
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // As PerfModels::load: a document that is not JSON is refused before from_json.
  const json doc = json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  PerfModels models;
  try {
    models = PerfModels::from_json(doc, "fuzz.json");
  } catch (const conveyor::UsageError&) {
    return 0;
  }
  const json written = models.to_json();
  const PerfModels again = reread(written, "accepted models are refused once written again");
  check(same(again.to_json(), written), "performance models changed in a write-read round trip");

  std::uint64_t listed = 0;
  for (const auto& row : models.rows()) {
    check(row.history != nullptr, "rows() lists a history it does not hold");
    check(models.samples(row.codelet, row.device, row.footprint) == row.history->count(),
          "samples() disagrees with rows()");
    listed += row.history->count();
    (void)models.predict(row.codelet, row.device, {row.footprint, row.bytes, 1e6});
    (void)models.prediction_error(row.codelet, row.device);
  }
  std::uint64_t counted = 0;
  for (const auto& [codelet, device] : models.pairs()) counted += models.samples(codelet, device);
  check(counted == listed, "samples() over pairs() disagrees with rows()");

  // A runtime goes on measuring and writes the file back at its end: that file must read again.
  for (const auto& [codelet, device] : models.pairs()) {
    models.record(codelet, device, {0, 4096, 1e6}, 1e-3);
    models.record_error(codelet, device, 2e-3, 1e-3);
  }
  reread(models.to_json(), "models that were measured on are refused once written");
  return 0;
}
