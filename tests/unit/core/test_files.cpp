// write_file_whole: the file appears whole or not at all, and failures say what and where.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(WriteFileWhole, WritesThenReplacesLeavingNothingElse) {
  ScratchDir dir;
  const std::string path = dir.path("result.json");
  write_file_whole(path, "{\"a\": 1}\n", "the result");
  EXPECT_EQ(read_text(path), "{\"a\": 1}\n");
  write_file_whole(path, std::string(1 << 20, 'x'), "the result");
  EXPECT_EQ(read_text(path), std::string(1 << 20, 'x'));
  EXPECT_EQ(files_in(dir.dir()), 1u);  // no temporary file left behind
}

TEST(WriteFileWhole, AFolderThatDoesNotExistIsOneClearError) {
  ScratchDir dir;
  const std::string path = dir.path("missing/result.json");
  try {
    write_file_whole(path, "{}", "the result");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write the result " + path + ": No such file or directory");
  }
}

TEST(WriteFileWhole, AFolderInTheWayKeepsItAndRemovesTheTemporary) {
  ScratchDir dir;
  const std::string path = dir.path("taken");
  std::filesystem::create_directory(path);
  EXPECT_THROW(write_file_whole(path, "{}", "the trace"), Error);
  EXPECT_TRUE(std::filesystem::is_directory(path));
  EXPECT_EQ(files_in(dir.dir()), 1u);
}

}  // namespace
}  // namespace conveyor::test
