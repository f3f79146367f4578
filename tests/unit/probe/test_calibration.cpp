// The calibration file: round trip, and the errors for missing, corrupt and stale files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

namespace fs = std::filesystem;

MachineFingerprint here() {
  return {"node7", "Test CPU 9000", {"cpu: Test CPU 9000", "opencl:0: pocl"}};
}

Calibration sample() {
  Calibration cal;
  cal.date = "2026-01-02T03:04:05Z";
  cal.machine = here();
  CalibrationEntry cpu;
  cpu.device = "cpu";
  cpu.device_name = "Test CPU 9000";
  cpu.td_us = 1.2;
  cpu.tm_us = 0.8;
  cpu.bw_gbs = 19.4;
  cpu.links["d2d"] = {9.5, 0.3, 1u << 28};
  CalibrationEntry gpu;
  gpu.device = "opencl:0";
  gpu.model = MemoryModel::Pinned;
  gpu.td_us = 36.9;
  gpu.tm_us = 59.6;
  gpu.bw_gbs = 11.5;
  gpu.enqueue_us = 4.5;
  gpu.rms_residual_us = 0.7;
  gpu.links["h2d"] = {12.0, 10.0, 1u << 28};
  gpu.links["d2h"] = {11.0, 12.0, 1u << 28};
  gpu.apps["matmul"].time_s = {{16, 1e-4}, {1024, 0.01}};
  gpu.apps["matmul"].crossover = 256;
  gpu.apps["md5"].time_s = {{4096, 2e-5}};
  cal.entries = {cpu, gpu};
  return cal;
}

class CalibrationFile : public ::testing::Test {
 protected:
  // In a folder that does not exist yet: save() must create it.
  fs::path path() const { return scratch_.dir() / "sub" / "calibration.json"; }
  void write(const std::string& text) {
    fs::create_directories(path().parent_path());
    std::ofstream(path()) << text;
  }
  std::string load_error(const MachineFingerprint& expected) {
    try {
      Calibration::load(path(), expected);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(no error)";
  }

 private:
  ScratchDir scratch_;
};

TEST_F(CalibrationFile, RoundTripKeepsEveryField) {
  sample().save(path());  // creates the missing folders
  Calibration back = Calibration::load(path(), here());
  EXPECT_EQ(back.schema, kCalibrationSchema);
  EXPECT_EQ(back.date, "2026-01-02T03:04:05Z");
  EXPECT_EQ(back.machine, here());
  ASSERT_EQ(back.entries.size(), 2u);
  const CalibrationEntry* gpu = back.find("opencl:0", MemoryModel::Pinned);
  ASSERT_NE(gpu, nullptr);
  EXPECT_DOUBLE_EQ(gpu->td_us, 36.9);
  EXPECT_DOUBLE_EQ(gpu->tm_us, 59.6);
  EXPECT_DOUBLE_EQ(gpu->bw_gbs, 11.5);
  EXPECT_DOUBLE_EQ(gpu->enqueue_us, 4.5);
  EXPECT_DOUBLE_EQ(gpu->links.at("d2h").latency_us, 12.0);
  EXPECT_EQ(gpu->links.at("h2d").bytes, 1u << 28);
  EXPECT_EQ(gpu->apps.at("matmul").crossover, std::optional<std::uint64_t>(256));
  EXPECT_EQ(gpu->apps.at("md5").crossover, std::nullopt);
  EXPECT_EQ(gpu->apps.at("matmul").time_s.back(), (std::pair<std::uint64_t, double>{1024, 0.01}));
  EXPECT_EQ(back.find("opencl:0", MemoryModel::Mapped), nullptr);
  ASSERT_NE(back.find("cpu", MemoryModel::Host), nullptr);
  // The model: 36.9 + 59.6 us plus 2 * 11.5 kB at 11.5 GB/s = 2 us.
  EXPECT_NEAR(gpu->predict_task_s(11500), 98.5e-6, 1e-12);
}

TEST_F(CalibrationFile, MissingFileSaysHowToRegenerate) {
  std::string error = load_error(here());
  EXPECT_NE(error.find("no calibration at"), std::string::npos) << error;
  EXPECT_NE(error.find("conveyor probe"), std::string::npos) << error;
}

TEST_F(CalibrationFile, CorruptFileIsAUsageError) {
  write("{\"conveyor_calibration\": 1, \"date\": ");
  EXPECT_NE(load_error(here()).find("not valid JSON"), std::string::npos) << load_error(here());
  write("[1, 2, 3]");
  EXPECT_NE(load_error(here()).find("not a Conveyor calibration"), std::string::npos);
  auto doc = sample().to_json();
  doc["entries"][1].erase("td_us");
  write(doc.dump());
  std::string error = load_error(here());
  EXPECT_NE(error.find("malformed"), std::string::npos) << error;
  EXPECT_NE(error.find("td_us"), std::string::npos) << error;
  doc = sample().to_json();
  doc["entries"][0]["model"] = "teleport";
  write(doc.dump());
  EXPECT_NE(load_error(here()).find("teleport"), std::string::npos);
}

// Regression found by fuzz/calibration.cpp (fuzz/corpus/calibration/crash_schema_float): an
// integer member holding a float beyond the type ({"conveyor_calibration": 1e10}) was cast to int
// by nlohmann's get<int>(), undefined behaviour; negative sizes wrapped to huge ones.
TEST_F(CalibrationFile, IntegersThatAreFloatsOrOutOfRangeAreRefused) {
  EXPECT_THROW(
      Calibration::from_json(nlohmann::json::parse(R"({"conveyor_calibration": 1e10})"), "c.json"),
      UsageError);
  auto doc = sample().to_json();
  doc["entries"][1]["links"]["h2d"]["bytes"] = -1;
  EXPECT_THROW(Calibration::from_json(doc, "c.json"), UsageError);
  doc = sample().to_json();
  doc["entries"][1]["apps"]["matmul"]["times"][0]["size"] = 1e30;
  write(doc.dump());
  std::string error = load_error(here());
  EXPECT_NE(error.find("'size' is 1e+30, not a whole number"), std::string::npos) << error;
  doc = sample().to_json();
  doc["entries"][1]["apps"]["matmul"]["crossover"] = 2.5;
  EXPECT_THROW(Calibration::from_json(doc, "c.json"), UsageError);
  doc = sample().to_json();
  doc["entries"][1]["apps"]["matmul"]["crossover"] = 4096;  // whole numbers still read
  EXPECT_EQ(Calibration::from_json(doc, "c.json").entries[1].apps.at("matmul").crossover, 4096u);
}

TEST_F(CalibrationFile, StaleFilesSayWhichDifference) {
  sample().save(path());
  MachineFingerprint other_host = here();
  other_host.hostname = "node8";
  EXPECT_NE(load_error(other_host).find("host 'node7', this is 'node8'"), std::string::npos)
      << load_error(other_host);
  MachineFingerprint other_cpu = here();
  other_cpu.cpu_model = "Other CPU";
  EXPECT_NE(load_error(other_cpu).find("CPU 'Test CPU 9000'"), std::string::npos);
  MachineFingerprint other_devices = here();
  other_devices.devices.push_back("cuda:0: NVIDIA H100");
  std::string error = load_error(other_devices);
  EXPECT_NE(error.find("stale"), std::string::npos) << error;
  EXPECT_NE(error.find("devices"), std::string::npos) << error;

  auto doc = sample().to_json();
  doc["conveyor_calibration"] = kOldestCalibrationSchema - 1;
  write(doc.dump());
  error = load_error(here());
  EXPECT_NE(error.find("stale"), std::string::npos) << error;
  EXPECT_NE(error.find("schema"), std::string::npos) << error;
}

TEST_F(CalibrationFile, SaveIntoAFileInsteadOfAFolderFails) {
  write("not a folder");
  fs::path inside = path() / "calibration.json";
  EXPECT_THROW(sample().save(inside), Error);
}

/// Sets an environment variable for one scope.
class EnvOverride {
 public:
  EnvOverride(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvOverride() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CalibrationPath, HonoursXdgCacheHomeThenHome) {
  EnvOverride home("HOME", "/home/someone");
  {
    EnvOverride xdg("XDG_CACHE_HOME", "/var/cache/me");
    EXPECT_EQ(default_calibration_path(), fs::path("/var/cache/me/conveyor/calibration.json"));
  }
  {
    EnvOverride xdg("XDG_CACHE_HOME", "relative/ignored");  // the XDG rule: absolute paths only
    EXPECT_EQ(default_calibration_path(),
              fs::path("/home/someone/.cache/conveyor/calibration.json"));
  }
  EnvOverride xdg("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(default_calibration_path(), fs::path("/home/someone/.cache/conveyor/calibration.json"));
  EnvOverride no_home("HOME", nullptr);
  EXPECT_THROW(default_calibration_path(), UsageError);
}

}  // namespace
}  // namespace conveyor::test
