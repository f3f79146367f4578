#include "machine/elf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "conveyor/error.hpp"

namespace conveyor::manycore {
namespace {

template <typename T>
T read(const std::vector<uint8_t>& file, size_t offset, const std::string& name) {
  if (offset + sizeof(T) > file.size())
    throw UsageError(fmt::format("{}: truncated ELF file", name));
  T value;
  std::memcpy(&value, file.data() + offset, sizeof(T));
  return value;
}

}  // namespace

ElfImage load_elf(const std::vector<uint8_t>& file, const std::string& name,
                  uint32_t memory_bytes) {
  auto bad = [&](const std::string& what) { return UsageError(fmt::format("{}: {}", name, what)); };
  if (file.size() < 52 || std::memcmp(file.data(),
                                      "\x7f"
                                      "ELF",
                                      4) != 0)
    throw bad("not an ELF file");
  if (file[4] != 1 || file[5] != 1)
    throw bad("not a 32-bit little-endian ELF file (build with -march=rv32im -mabi=ilp32)");
  if (read<uint16_t>(file, 18, name) != 243) throw bad("not a RISC-V executable (e_machine)");
  if (read<uint16_t>(file, 16, name) != 2) throw bad("not an executable (ET_EXEC)");
  ElfImage image;
  image.name = name;
  image.entry = read<uint32_t>(file, 24, name);
  uint32_t phoff = read<uint32_t>(file, 28, name);
  uint16_t phentsize = read<uint16_t>(file, 42, name);
  uint16_t phnum = read<uint16_t>(file, 44, name);
  // Each entry must be a whole Elf32_Phdr apart: with a smaller stride (0) one entry read 65535
  // times loads 65535 copies of its segment, gigabytes from a file of a few bytes.
  if (phnum > 0 && phentsize < 32) throw bad("program header entries smaller than 32 bytes");
  bool have_code = false;
  for (int i = 0; i < phnum; ++i) {
    size_t ph = phoff + static_cast<size_t>(i) * phentsize;
    if (read<uint32_t>(file, ph, name) != 1) continue;  // PT_LOAD only
    uint32_t offset = read<uint32_t>(file, ph + 4, name);
    uint32_t vaddr = read<uint32_t>(file, ph + 8, name);
    uint32_t filesz = read<uint32_t>(file, ph + 16, name);
    uint32_t memsz = read<uint32_t>(file, ph + 20, name);
    uint32_t flags = read<uint32_t>(file, ph + 24, name);
    if (memsz == 0) continue;
    if (filesz > memsz || static_cast<size_t>(offset) + filesz > file.size())
      throw bad("segment outside the file");
    if (static_cast<uint64_t>(vaddr) + memsz > memory_bytes)
      throw bad(fmt::format("segment 0x{:08x}+{} does not fit the {} B local memory", vaddr, memsz,
                            memory_bytes));
    Segment s;
    s.addr = vaddr;
    s.bytes.assign(file.begin() + offset, file.begin() + offset + filesz);
    s.bytes.resize(memsz, 0);
    s.exec = flags & 1;
    if (s.exec) {
      if (have_code) throw bad("more than one executable segment");
      have_code = true;
      image.code_lo = vaddr;
      image.code_hi = vaddr + (memsz & ~3u);
      image.code.resize(memsz / 4);
      for (size_t w = 0; w < image.code.size(); ++w) {
        uint32_t word;
        std::memcpy(&word, s.bytes.data() + 4 * w, 4);
        image.code[w] = isa::decode(word);
      }
    }
    image.segments.push_back(std::move(s));
  }
  if (!have_code) throw bad("no executable segment");
  if (image.entry < image.code_lo || image.entry >= image.code_hi)
    throw bad("entry point outside the code");
  return image;
}

}  // namespace conveyor::manycore
