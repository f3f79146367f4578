#include "conveyor/files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "conveyor/error.hpp"

namespace conveyor {
namespace {

std::atomic<unsigned> next_temporary{0};

// Writes all of `content` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void write_file_whole(const std::filesystem::path& path, std::string_view content,
                      std::string_view what) {
  auto fail = [&](const std::string& reason) {
    return Error(fmt::format("cannot write {} {}: {}", what, path.string(), reason));
  };
  const std::filesystem::path directory =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const std::filesystem::path temporary =
      directory / fmt::format(".{}.{}.{}.tmp", path.filename().string(), ::getpid(),
                              next_temporary.fetch_add(1, std::memory_order_relaxed));
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw fail(std::strerror(errno));
  // The data reaches the disk before the rename makes it visible: after a crash of the machine
  // the name holds the old file or the new one, never an empty one.
  std::string reason;
  if (!write_all(fd, content) || ::fsync(fd) != 0) reason = std::strerror(errno);
  if (::close(fd) != 0 && reason.empty()) reason = std::strerror(errno);
  if (reason.empty() && ::rename(temporary.c_str(), path.c_str()) != 0)
    reason = std::strerror(errno);
  if (reason.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  throw fail(reason);
}

}  // namespace conveyor
