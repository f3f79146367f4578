#pragma once
// Strict reading of the simulator's JSON files (platform files, cluster files): every key must be
// known, and an error names the file and the key path ("devices[1].gflops.gemm").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "conveyor/error.hpp"

namespace conveyor::device::simulated {

using nlohmann::json;

/// A JSON object read strictly; `kind` names the sort of file in messages.
class Reader {
 public:
  Reader(const json& j, std::string origin, std::string path, const char* kind = "platform file")
      : j_(j), origin_(std::move(origin)), path_(std::move(path)), kind_(kind) {
    if (!j_.is_object()) fail("must be an object");
  }
  [[noreturn]] void fail(const std::string& what, const std::string& key = {}) const {
    std::string where = key.empty() ? path_ : (path_.empty() ? key : path_ + "." + key);
    throw UsageError(
        fmt::format("{} {}: {}{}", kind_, origin_, where.empty() ? "" : "'" + where + "' ", what));
  }
  void allow(std::initializer_list<const char*> keys) const {
    for (const auto& item : j_.items()) {
      // Not a structured binding: clang before 16 cannot capture one in the lambda.
      const std::string& k = item.key();
      if (std::none_of(keys.begin(), keys.end(), [&](const char* a) { return k == a; })) {
        std::string known;
        for (const char* a : keys) known += (known.empty() ? "" : ", ") + std::string(a);
        fail(fmt::format("is an unknown key (known here: {})", known), k);
      }
    }
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& at(const char* key) const {
    if (!has(key)) fail("is missing", key);
    return j_.at(key);
  }
  double number(const char* key, double fallback, bool required = false,
                bool positive = false) const {
    if (!has(key)) {
      if (required) fail("is missing", key);
      return fallback;
    }
    const json& v = j_.at(key);
    if (!v.is_number()) fail("must be a number", key);
    double x = v.get<double>();
    if (x < 0) fail(fmt::format("must not be negative (got {})", x), key);
    if (positive && x == 0) fail("must be positive (got 0)", key);
    return x;
  }
  /// A whole number from 1 to `most`, checked as a double first: casting one beyond int's range
  /// (1e10 cores) is undefined, and a huge count would make that many devices.
  int whole(const char* key, double fallback, bool required, int most) const {
    double x = number(key, fallback, required, true);
    if (x != std::floor(x)) fail("must be a whole number", key);
    if (x > most) fail(fmt::format("must be at most {} (got {})", most, x), key);
    return static_cast<int>(x);
  }
  std::string text(const char* key, bool required = false) const {
    if (!has(key)) {
      if (required) fail("is missing", key);
      return {};
    }
    if (!j_.at(key).is_string()) fail("must be a string", key);
    return j_.at(key).get<std::string>();
  }
  Reader child(const char* key) const { return Reader(at(key), origin_, join(key), kind_); }
  Reader item(const json& j, const std::string& path) const {
    return Reader(j, origin_, path, kind_);
  }
  std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const json& self() const { return j_; }
  const std::string& origin() const { return origin_; }

 private:
  const json& j_;
  std::string origin_, path_;
  const char* kind_;
};

}  // namespace conveyor::device::simulated
