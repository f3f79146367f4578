// The tests' own scratch directories (tests/scratch_dir.hpp): fresh, private, and gone afterwards.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDir, FreshPrivateAndRemovedWithItsFiles) {
  fs::path kept;
  {
    ScratchDir a, b;
    EXPECT_NE(a.dir(), b.dir());
    EXPECT_TRUE(fs::is_directory(a.dir()));
    EXPECT_TRUE(fs::is_empty(a.dir()));
    EXPECT_NE(a.dir().filename().string().find("ScratchDir_FreshPrivateAndRemovedWithItsFiles"),
              std::string::npos)
        << a.dir();
    struct stat st {};
    ASSERT_EQ(stat(a.dir().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(a.dir() / "sub");
    std::ofstream(a.path("sub/file.txt")) << "x";
    kept = a.dir();
  }
  EXPECT_FALSE(fs::exists(kept));
}

}  // namespace
}  // namespace conveyor::test
