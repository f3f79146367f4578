// DSA descriptor encoding and work-queue selection: pure functions, tested without DSA hardware.
#include <gtest/gtest.h>

#include <cstring>

#include "conveyor/error.hpp"
#include "movers/dsa/descriptor.hpp"

namespace conveyor::movers::dsa {
namespace {

template <typename T>
T field(const dsa_hw_desc& d, std::size_t offset) {
  T value;
  std::memcpy(&value, reinterpret_cast<const unsigned char*>(&d) + offset, sizeof value);
  return value;
}

TEST(DsaDescriptor, MemmoveLayoutFollowsTheSpecification) {
  alignas(32) dsa_completion_record record{};
  char src[64], dst[64];
  dsa_hw_desc d = make_memmove(dst, src, 4096, &record, memmove_flags(true, false));
  // Bytes 0-3: PASID (20 bits, 0: ENQCMD supplies it), reserved, privilege.
  EXPECT_EQ(field<std::uint32_t>(d, 0), 0u);
  // Bytes 4-6: flags; byte 7: operation (memmove = 0x03).
  std::uint32_t word = field<std::uint32_t>(d, 4);
  EXPECT_EQ(word >> 24, 0x03u);
  EXPECT_EQ(word & 0xffffffu, 0x0004u | 0x0008u | 0x0100u);  // CRAV | RCR | CC
  EXPECT_EQ(field<std::uint64_t>(d, 8), reinterpret_cast<std::uintptr_t>(&record));
  EXPECT_EQ(field<std::uint64_t>(d, 16), reinterpret_cast<std::uintptr_t>(src));
  EXPECT_EQ(field<std::uint64_t>(d, 24), reinterpret_cast<std::uintptr_t>(dst));
  EXPECT_EQ(field<std::uint32_t>(d, 32), 4096u);
  for (std::size_t i = 36; i < 64; ++i)
    EXPECT_EQ(reinterpret_cast<const unsigned char*>(&d)[i], 0) << "byte " << i;
}

TEST(DsaDescriptor, Flags) {
  EXPECT_EQ(memmove_flags(false, false), 0x000cu);
  EXPECT_EQ(memmove_flags(true, false), 0x010cu);
  EXPECT_EQ(memmove_flags(true, true), 0x010eu);  // + BOF
}

TEST(DsaDescriptor, CompletionStatus) {
  EXPECT_EQ(classify(0), Outcome::Pending);
  EXPECT_EQ(classify(DSA_COMP_SUCCESS), Outcome::Success);
  EXPECT_EQ(classify(DSA_COMP_SUCCESS | DSA_COMP_STATUS_WRITE), Outcome::Success);
  EXPECT_EQ(classify(DSA_COMP_PAGE_FAULT_NOBOF), Outcome::PageFault);
  EXPECT_EQ(classify(DSA_COMP_BAD_OPCODE), Outcome::Failed);
  EXPECT_EQ(status_text(DSA_COMP_XFER_ERANGE), "transfer size out of range");
  EXPECT_EQ(status_text(0x7e), "status 0x7e");
}

TEST(DsaDescriptor, ResumeAfterPageFault) {
  alignas(32) dsa_completion_record record{};
  dsa_hw_desc d = make_memmove(reinterpret_cast<void*>(0x20000), reinterpret_cast<void*>(0x10000),
                               8192, &record, memmove_flags(true, false));
  record.bytes_completed = 3000;
  dsa_hw_desc next = resume_after_fault(d, record);
  EXPECT_EQ(next.src_addr, 0x10000u + 3000);
  EXPECT_EQ(next.dst_addr, 0x20000u + 3000);
  EXPECT_EQ(next.xfer_size, 8192u - 3000);
  EXPECT_EQ(next.opcode, d.opcode);
  EXPECT_EQ(next.flags, d.flags);
  record.bytes_completed = 99999;  // never past the end
  EXPECT_EQ(resume_after_fault(d, record).xfer_size, 0u);
}

TEST(DsaWorkQueue, SelectsTheFirstUsableUserQueue) {
  WorkQueueInfo kernel_wq{"wq0.0", "dsa0", true, true, false, true, false, 1u << 31, ""};
  WorkQueueInfo disabled{"wq0.1", "dsa0", true,     false,           true,
                         true,    false,  1u << 31, "/dev/dsa/wq0.1"};
  WorkQueueInfo iaa{"wq1.0", "iax1", false, true, true, true, false, 1u << 31, "/dev/iax/wq1.0"};
  WorkQueueInfo good{"wq2.0", "dsa2", true, true, true, false, true, 1u << 31, "/dev/dsa/wq2.0"};
  std::vector<WorkQueueInfo> queues{kernel_wq, disabled, iaa, good};
  EXPECT_EQ(select_work_queue(queues, "").name, "wq2.0");
  EXPECT_EQ(select_work_queue(queues, "wq2.0").name, "wq2.0");
  try {
    select_work_queue({kernel_wq, disabled, iaa}, "");
    FAIL();
  } catch (const UsageError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("no DSA work queue found: ", 0), 0u) << what;
    EXPECT_NE(what.find("wq0.0: not a user queue"), std::string::npos) << what;
    EXPECT_NE(what.find("wq0.1: disabled"), std::string::npos) << what;
    EXPECT_NE(what.find("wq1.0: not a DSA device"), std::string::npos) << what;
  }
  EXPECT_THROW(select_work_queue({}, ""), UsageError);
  EXPECT_THROW(select_work_queue(queues, "wq9.9"), UsageError);
}

}  // namespace
}  // namespace conveyor::movers::dsa
