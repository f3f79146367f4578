#include "progress_line.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace conveyor::cli {
namespace {

// The terminal's width, so that the line never wraps (a wrapped line cannot be redrawn in place).
std::size_t terminal_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::string duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  if (seconds < 3600) return fmt::format("{}:{:02} min", int(seconds) / 60, int(seconds) % 60);
  return fmt::format("{}:{:02} h", int(seconds) / 3600, int(seconds) % 3600 / 60);
}

}  // namespace

ProgressLine::ProgressLine(std::string command, bool quiet)
    : command_(std::move(command)), shown_(!quiet && isatty(STDERR_FILENO) == 1) {
  if (shown_) ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() {
  if (!shown_) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  std::fputs("\r\033[K", stderr);  // erase the line: what follows starts on a clean one
  std::fflush(stderr);
}

ProgressFn ProgressLine::step_fn(std::string context) {
  if (!shown_) return {};
  return [this, context = std::move(context)](const ProgressStep& s) { show(context, s); };
}

void ProgressLine::show(std::string_view context, const ProgressStep& step) {
  if (!shown_) return;
  std::lock_guard lock(mutex_);
  if (step.what != what_ || step.done == 0) {  // a new sequence: time its steps from here
    what_ = step.what;
    what_start_ = Clock::now();
  }
  done_ = step.done;
  total_ = step.total;
  text_ = context.empty() ? std::string(step.what) : fmt::format("{}: {}", context, step.what);
  if (step.total > 0) text_ += fmt::format(" {} of {}", step.done, step.total);
  draw_locked();
}

void ProgressLine::draw_locked() {
  const Clock::time_point now = Clock::now();
  std::string line = fmt::format("{}: {}, {}", command_, text_,
                                 duration(std::chrono::duration<double>(now - start_).count()));
  if (total_ > 0 && done_ > 0 && done_ < total_) {
    const double per_step =
        std::chrono::duration<double>(now - what_start_).count() / static_cast<double>(done_);
    line += fmt::format(", about {} left", duration(per_step * double(total_ - done_)));
  }
  const std::size_t width = terminal_columns() - 1;
  if (line.size() > width) line.resize(width);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

std::string configuration_label(std::size_t index, std::size_t count) {
  return count > 1 ? fmt::format("configuration {} of {}", index + 1, count) : "";
}

void ProgressLine::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stopping_; }))
    if (!text_.empty()) draw_locked();
}

}  // namespace conveyor::cli
