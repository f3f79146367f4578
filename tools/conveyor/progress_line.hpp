#pragma once
// What a long command shows while it runs: one line on stderr, redrawn in place,
//
//   qr: factorisations 2 of 5, 14 s, about 21 s left
//
// only when stderr is a terminal and --quiet was not given, and erased when the command ends, so
// that what goes to stdout (tables, JSON, CSV) and a redirected stderr stay as they were.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "conveyor/progress.hpp"

namespace conveyor::cli {

class ProgressLine {
 public:
  /// `command` starts the line ("qr"); shown only when `quiet` is false and stderr is a terminal.
  ProgressLine(std::string command, bool quiet);
  /// Erases the line.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool shown() const { return shown_; }
  /// A callback for the library's ProgressFn; `context` goes before the step ("cpu, 4 threads").
  ProgressFn step_fn(std::string context = "");
  /// Shows `step` of `context` now.
  void show(std::string_view context, const ProgressStep& step);

 private:
  using Clock = std::chrono::steady_clock;
  void draw_locked();  // the line as it stands, with the time spent and, where known, left
  void tick();         // redraws every half second, so that the time moves on a long step

  std::string command_;
  bool shown_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  Clock::time_point start_ = Clock::now();
  std::string text_;                // "factorisations 2 of 5" and its context
  std::string what_;                // the step's kind, to know when a new sequence starts
  Clock::time_point what_start_{};  // when its first step started
  std::size_t done_ = 0, total_ = 0;
  std::thread ticker_;
};

/// "configuration 2 of 4" when a command runs several, else "" (the context of their steps).
std::string configuration_label(std::size_t index, std::size_t count);

}  // namespace conveyor::cli
