#pragma once
// DeviceInfo::details is JSON text in the public header (so that users of the runtime need no JSON
// library); inside Conveyor it is read as a document.
#include <nlohmann/json.hpp>

#include "conveyor/device.hpp"

namespace conveyor {

/// The device's details as a JSON object (an empty object when the text is not one).
inline nlohmann::json device_details(const DeviceInfo& info) {
  auto doc = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : nlohmann::json::object();
}

}  // namespace conveyor
