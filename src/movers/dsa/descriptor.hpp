#pragma once
// Intel DSA descriptors and completion records, and the choice of a work queue: pure functions,
// compiled on every machine so that their encoding is tested where no DSA exists (the layouts are
// the kernel's uapi, <linux/idxd.h>).
#include <linux/idxd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace conveyor::movers::dsa {

static_assert(sizeof(dsa_hw_desc) == 64, "a DSA descriptor is one 64-byte portal write");
static_assert(sizeof(dsa_completion_record) == 32, "a DSA completion record is 32 bytes");

/// Flags of every memmove we submit: request a completion record (RCR) at a valid address (CRAV);
/// with cache_control, the destination is written into the LLC (CC, the seed's
/// DML_FLAG_PREFETCH_CACHE) instead of memory; with block_on_fault the engine resolves page faults
/// itself (BOF, only where the work queue allows it).
std::uint32_t memmove_flags(bool cache_control, bool block_on_fault);

/// A DSA_OPCODE_MEMMOVE descriptor copying `bytes` from src to dst, completing into `record`
/// (32-byte aligned). PASID and privilege stay 0: ENQCMD inserts the process's PASID, a dedicated
/// queue has its own.
dsa_hw_desc make_memmove(void* dst, const void* src, std::uint32_t bytes,
                         dsa_completion_record* record, std::uint32_t flags);

enum class Outcome { Pending, Success, PageFault, Failed };
/// What a completion record says; `status` is the record's status byte.
Outcome classify(std::uint8_t status);
/// A readable name for a completion status ("page fault (no block-on-fault)").
std::string status_text(std::uint8_t status);
/// The descriptor for the rest of a copy that stopped at a page fault after
/// `record.bytes_completed` bytes.
dsa_hw_desc resume_after_fault(const dsa_hw_desc& desc, const dsa_completion_record& record);

/// A work queue as accel-config describes it.
struct WorkQueueInfo {
  std::string name;    ///< "wq0.0"
  std::string device;  ///< "dsa0"
  bool dsa = true;     ///< a DSA device (not IAA)
  bool enabled = false;
  bool user = false;    ///< type "user": mapped by applications through /dev/dsa
  bool shared = false;  ///< shared (ENQCMD) or dedicated (MOVDIR64B)
  bool block_on_fault = false;
  std::uint64_t max_transfer_bytes = 0;
  std::string path;  ///< /dev/dsa/wq0.0
};
/// The first enabled user work queue of a DSA device (named `wanted`, when not empty). Throws
/// UsageError "no DSA work queue found: ..." saying why each candidate was passed over.
const WorkQueueInfo& select_work_queue(const std::vector<WorkQueueInfo>& queues,
                                       std::string_view wanted);

}  // namespace conveyor::movers::dsa
