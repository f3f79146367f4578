#pragma once
// A fresh directory for one test's files, removed with everything in it when the test ends.
//
// Tests must not write fixed names into a shared directory: two test processes (ctest -j, or two
// build trees on one machine) would overwrite each other's files, and a user's own /tmp/ring.c
// would be clobbered. mkdtemp makes the name unique and the directory private (mode 0700).
//
//   ScratchDir dir;                        // e.g. /tmp/conveyor_test_Suite_Name_a1B2c3
//   std::string elf = dir.path("ring.elf");
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace conveyor::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) /
                        ("conveyor_test_" + current_test_name() + "_XXXXXX"))
                           .string();
    if (mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
    dir_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;  // best effort: a destructor must not throw
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  /// The path of `name` inside the directory (not created).
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  // Suite and test name, so that a directory left behind by a crash says whose it was.
  static std::string current_test_name() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        info ? std::string(info->test_suite_name()) + "_" + info->name() : std::string("none");
    for (char& c : name)
      if (c == '/' || c == ' ') c = '_';
    return name;
  }

  std::filesystem::path dir_;
};

/// The whole content of a file ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace conveyor::test
