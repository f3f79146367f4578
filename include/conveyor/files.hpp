#pragma once
/// Files that appear whole or not at all.
///
/// Every file Conveyor writes (result documents, traces, the calibration, performance models) goes
/// through write_file_whole: a run killed while writing, or a reader looking meanwhile, never finds
/// half a file where the previous one was.
///
///   conveyor::write_file_whole("result.json", doc.dump(2) + "\n", "the result");
#include <filesystem>
#include <string_view>

namespace conveyor {

/// Writes `content` into a temporary file beside `path` (its name unique to this process and call,
/// starting with '.' and ending in ".tmp"), flushes it to the disk, then renames it over `path`
/// (atomic within a file system). Throws Error "cannot write WHAT PATH: REASON" when it cannot; the
/// temporary file is removed then. A process killed before the rename leaves the old `path` (or
/// none) and, at worst, its temporary file.
void write_file_whole(const std::filesystem::path& path, std::string_view content,
                      std::string_view what);

}  // namespace conveyor
