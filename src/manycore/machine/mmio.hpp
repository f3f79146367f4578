#pragma once
// The memory-mapped registers every node sees at kMmioBase. manycore/programs/mcore/mcore_mmio.h
// holds the same numbers for the programs; keep both in step.
#include <cstdint>

namespace conveyor::manycore::mmio {

inline constexpr uint32_t kBase = 0xF0000000u;
enum Reg : uint32_t {
  kNodeId = 0x00,      // R: this node's id (y * width + x)
  kMeshWidth = 0x04,   // R
  kMeshHeight = 0x08,  // R
  kCycle = 0x0C,       // R: low 32 bits of the cycle counter
  kConsole = 0x10,     // W: one character
  kExit = 0x14,        // W: waits for own stores and DMA, then halts with this code
  kBarrier = 0x18,     // R: waits for own stores and DMA, then for every node; reads 0
  kRoi = 0x1C,         // W: 1 begins the region of interest, 0 ends it (after own DMA completes)
  kDmaNode = 0x20,     // W: the other side: a node id, or kMemNode for main memory
  kDmaRemote = 0x24,   // W: address at the other side
  kDmaLocal = 0x28,    // W: address in this node's local memory
  kDmaSize = 0x2C,     // W: bytes
  kDmaCmd = 0x30,      // W: kCmdPut / kCmdGet, | kCmdBlocking; starts the transfer
  kDmaWait = 0x34,     // R: waits until every DMA of this node completed; reads 0
  kMemNode = 0x38,     // R: the node id of main memory (= width * height)
  kEnd = 0x3C
};
inline constexpr uint32_t kCmdPut = 1, kCmdGet = 2, kCmdBlocking = 0x100;

}  // namespace conveyor::manycore::mmio
