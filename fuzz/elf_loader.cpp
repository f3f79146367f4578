// Feeds: any bytes as a RISC-V program file to the simulator's ELF loader (sim::load_elf,
// src/manycore/machine/elf.cpp, what `conveyor sim` runs on every program), and the programs it
// accepts to a one-node machine (sim::run_elf_image) for a few thousand cycles.
// A bug: a crash, sanitizer report or out-of-memory (a small file must not make the loader
// allocate gigabytes); a rejection that is not UsageError; an accepted image that breaks the
// loader's promises (every segment inside local memory, exactly one executable segment, the entry
// point inside it, its words predecoded one for one); a run that throws anything but SimFault (the
// program misbehaved) or UsageError.
#include <cstdint>
#include <cstring>
#include <vector>

#include "conveyor/sim.hpp"
#include "fuzz_check.hpp"
#include "machine/elf.hpp"

using conveyor::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> file(data, data + size);
  conveyor::sim::SimConfig config;
  config.mesh_width = config.mesh_height = 1;
  config.main_memory_bytes = 64 * 1024;
  config.max_cycles = 20000;
  try {
    const conveyor::manycore::ElfImage image =
        conveyor::manycore::load_elf(file, "fuzz.elf", config.local_memory_bytes);
    int executable = 0;
    for (const auto& s : image.segments) {
      check(s.addr + std::uint64_t{s.bytes.size()} <= config.local_memory_bytes,
            "a loaded segment lies outside local memory");
      if (!s.exec) continue;
      ++executable;
      // The predecoded code is the executable segment's words, decoded one by one.
      check(s.addr == image.code_lo && image.code.size() == s.bytes.size() / 4,
            "the predecoded code is not the executable segment");
      for (std::size_t w = 0; w < image.code.size(); ++w) {
        std::uint32_t word;
        std::memcpy(&word, s.bytes.data() + 4 * w, 4);
        const conveyor::manycore::isa::Insn want = conveyor::manycore::isa::decode(word);
        const conveyor::manycore::isa::Insn& got = image.code[w];
        check(got.op == want.op && got.rd == want.rd && got.rs1 == want.rs1 &&
                  got.rs2 == want.rs2 && got.imm == want.imm,
              "a predecoded instruction differs from its word");
      }
    }
    check(executable == 1, "an image without exactly one executable segment");
    check(image.code_hi >= image.code_lo &&
              std::uint64_t{image.code_hi} - image.code_lo == 4 * image.code.size(),
          "the executable range is not the predecoded code");
    check(image.entry >= image.code_lo && image.entry < image.code_hi,
          "the entry point lies outside the code");
  } catch (const conveyor::UsageError&) {
    return 0;
  }
  try {
    conveyor::sim::run_elf_image(config, file, "fuzz.elf", nullptr);
  } catch (const conveyor::sim::SimFault&) {
  } catch (const conveyor::UsageError&) {
  }
  return 0;
}
