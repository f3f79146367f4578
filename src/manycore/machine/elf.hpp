#pragma once
// ELF32 little-endian RISC-V executables: the loadable segments and the predecoded code.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/decode.hpp"

namespace conveyor::manycore {

struct Segment {
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;  ///< file contents, zero-extended to the memory size
  bool exec = false;
};

struct ElfImage {
  std::string name;
  uint32_t entry = 0;
  std::vector<Segment> segments;
  uint32_t code_lo = 0, code_hi = 0;  ///< the executable range, predecoded in `code`
  std::vector<isa::Insn> code;
};

/// Parses and checks the file; throws UsageError naming the file and the problem. Segments must
/// fit in `memory_bytes`.
ElfImage load_elf(const std::vector<uint8_t>& file, const std::string& name, uint32_t memory_bytes);

}  // namespace conveyor::manycore
