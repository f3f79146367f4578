#include "movers/dsa/descriptor.hpp"

#include <fmt/format.h>

#include <cstring>

#include "conveyor/error.hpp"

namespace conveyor::movers::dsa {

std::uint32_t memmove_flags(bool cache_control, bool block_on_fault) {
  std::uint32_t flags = IDXD_OP_FLAG_CRAV | IDXD_OP_FLAG_RCR;
  if (cache_control) flags |= IDXD_OP_FLAG_CC;
  if (block_on_fault) flags |= IDXD_OP_FLAG_BOF;
  return flags;
}

dsa_hw_desc make_memmove(void* dst, const void* src, std::uint32_t bytes,
                         dsa_completion_record* record, std::uint32_t flags) {
  dsa_hw_desc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.opcode = DSA_OPCODE_MEMMOVE;
  desc.flags = flags;
  desc.completion_addr = reinterpret_cast<std::uintptr_t>(record);
  desc.src_addr = reinterpret_cast<std::uintptr_t>(src);
  desc.dst_addr = reinterpret_cast<std::uintptr_t>(dst);
  desc.xfer_size = bytes;
  return desc;
}

Outcome classify(std::uint8_t status) {
  switch (status & DSA_COMP_STATUS_MASK) {
    case 0:
      return Outcome::Pending;
    case DSA_COMP_SUCCESS:
      return Outcome::Success;
    case DSA_COMP_PAGE_FAULT_NOBOF:
      return Outcome::PageFault;
    default:
      return Outcome::Failed;
  }
}

std::string status_text(std::uint8_t status) {
  unsigned code = status & DSA_COMP_STATUS_MASK;
  switch (code) {
    case 0:
      return "pending";
    case DSA_COMP_SUCCESS:
      return "success";
    case DSA_COMP_PAGE_FAULT_NOBOF:
      return "page fault (no block-on-fault)";
    case DSA_COMP_PAGE_FAULT_IR:
      return "page fault in a completion record";
    case DSA_COMP_BATCH_FAIL:
      return "batch failure";
    case DSA_COMP_BAD_OPCODE:
      return "unsupported operation";
    case DSA_COMP_INVALID_FLAGS:
      return "invalid flags";
    case DSA_COMP_NOZERO_RESERVE:
      return "non-zero reserved field";
    case DSA_COMP_XFER_ERANGE:
      return "transfer size out of range";
    case DSA_COMP_DESC_CNT_ERANGE:
      return "descriptor count out of range";
    case DSA_COMP_DR_OFFSET_ERANGE:
      return "delta record offset out of range";
    case DSA_COMP_OVERLAP_BUFFERS:
      return "overlapping buffers";
    case DSA_COMP_DCAST_ERR:
      return "dualcast alignment error";
    case DSA_COMP_DESCLIST_ALIGN:
      return "descriptor list alignment";
    case DSA_COMP_INT_HANDLE_INVAL:
      return "invalid interrupt handle";
    case DSA_COMP_CRA_XLAT:
      return "completion record address translation failed";
    case DSA_COMP_CRA_ALIGN:
      return "completion record misaligned";
    case DSA_COMP_ADDR_ALIGN:
      return "address misaligned";
    case DSA_COMP_PRIV_BAD:
      return "privilege error";
    case DSA_COMP_TRAFFIC_CLASS_CONF:
      return "traffic class configuration";
    case DSA_COMP_PFAULT_RDBA:
      return "page fault on readback address";
    case DSA_COMP_HW_ERR1:
      return "hardware error";
    case DSA_COMP_HW_ERR_DRB:
      return "hardware error (drain readback)";
    case DSA_COMP_TRANSLATION_FAIL:
      return "address translation failed";
    default:
      return fmt::format("status 0x{:02x}", code);
  }
}

dsa_hw_desc resume_after_fault(const dsa_hw_desc& desc, const dsa_completion_record& record) {
  dsa_hw_desc next = desc;
  std::uint32_t done = record.bytes_completed;
  if (done > desc.xfer_size) done = desc.xfer_size;
  next.src_addr = desc.src_addr + done;
  next.dst_addr = desc.dst_addr + done;
  next.xfer_size = desc.xfer_size - done;
  return next;
}

const WorkQueueInfo& select_work_queue(const std::vector<WorkQueueInfo>& queues,
                                       std::string_view wanted) {
  std::string why;
  for (const auto& q : queues) {
    std::string reason;
    if (!wanted.empty() && q.name != wanted)
      continue;
    else if (!q.dsa)
      reason = "not a DSA device";
    else if (!q.enabled)
      reason = "disabled";
    else if (!q.user)
      reason = "not a user queue (type must be 'user')";
    else if (q.path.empty())
      reason = "no character device";
    if (reason.empty()) return q;
    why += fmt::format("{}{}/{}: {}", why.empty() ? "" : "; ", q.device, q.name, reason);
  }
  if (queues.empty())
    throw UsageError(
        "no DSA work queue found: the idxd driver reports no work queues (configure one with "
        "accel-config, type user, and enable it)");
  if (why.empty())
    throw UsageError(fmt::format("no DSA work queue found: no work queue named '{}'", wanted));
  throw UsageError("no DSA work queue found: " + why);
}

}  // namespace conveyor::movers::dsa
