#pragma once
// Helpers for the CUDA backend tests. They use only the public API, so they compile whether or not
// the backend is built; a missing backend or device is a skip with its reason, never a pass.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/device.hpp"

namespace conveyor::test {

/// The CUDA backend when it is compiled in, else null.
inline const Backend* cuda_backend() {
  for (const auto& backend : backends())
    if (backend->kind() == DeviceKind::Cuda) return backend.get();
  return nullptr;
}

/// Runs its tests on cuda:0 and skips, saying why, where there is none.
class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Backend* backend = cuda_backend();
    if (!backend) GTEST_SKIP() << "the CUDA backend is not compiled in";
    if (backend->devices().empty()) GTEST_SKIP() << "cuda:0 is not present: " << backend->status();
    device_ = backend->devices().front();
  }
  Device& device() { return *device_; }

 private:
  std::shared_ptr<Device> device_;
};

/// 64-byte messages with digests from Python: hashlib.md5(message).hexdigest().
struct Md5Case {
  const char* what;
  std::array<std::uint8_t, 64> message;
  const char* hex;
};

inline std::vector<Md5Case> md5_cases() {
  auto make = [](auto byte_at) {
    std::array<std::uint8_t, 64> m{};
    for (int i = 0; i < 64; ++i) m[i] = static_cast<std::uint8_t>(byte_at(i));
    return m;
  };
  const std::string text = "Conveyor moves data to where computation runs, and overlaps it..";
  return {
      {"bytes(64)", make([](int) { return 0; }), "3b5d3c7d207e37dceeedd301e35e2e58"},
      {"bytes(range(64))", make([](int i) { return i; }), "b2d3f56bc197fd985d5965079b5e7148"},
      {"bytes((7*i+3) % 256 ...)", make([](int i) { return (7 * i + 3) % 256; }),
       "7160b8fb5e9e4023d549c3971fbaeead"},
      {"ascii text", make([&](int i) { return text.at(i); }), "0ad1fc3dbb28fd6470a14d0c8d84a842"},
      {"b'\\xff' * 64", make([](int) { return 0xff; }), "aabd2b2a451504e119a243d8e775fdad"},
  };
}

inline std::string to_hex(const std::uint8_t* bytes, std::size_t count) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

}  // namespace conveyor::test
