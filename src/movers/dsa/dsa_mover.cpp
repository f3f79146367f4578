#include "movers/dsa/dsa_mover.hpp"

#include <accel-config/libaccel_config.h>
#include <cpuid.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "conveyor/error.hpp"
#include "movers/dsa/descriptor.hpp"
#include "movers/spin_wait.hpp"

namespace conveyor::movers::dsa {
namespace {

// Every work queue accel-config knows, with the facts select_work_queue() decides by.
std::vector<WorkQueueInfo> list_work_queues() {
  accfg_ctx* raw = nullptr;
  if (accfg_new(&raw) != 0 || raw == nullptr)
    throw UsageError("no DSA work queue found: libaccel-config could not read the idxd sysfs");
  std::unique_ptr<accfg_ctx, decltype(&accfg_unref)> ctx(raw, &accfg_unref);
  std::vector<WorkQueueInfo> queues;
  accfg_device* device = nullptr;
  accfg_device_foreach(ctx.get(), device) {
    accfg_wq* wq = nullptr;
    accfg_wq_foreach(device, wq) {
      WorkQueueInfo info;
      info.name = accfg_wq_get_devname(wq);
      info.device = accfg_device_get_devname(device);
      info.dsa = accfg_device_get_type(device) == ACCFG_DEVICE_DSA;
      info.enabled = accfg_wq_get_state(wq) == ACCFG_WQ_ENABLED;
      info.user = accfg_wq_get_type(wq) == ACCFG_WQT_USER;
      info.shared = accfg_wq_get_mode(wq) == ACCFG_WQ_SHARED;
      info.block_on_fault = accfg_wq_get_block_on_fault(wq) > 0;
      info.max_transfer_bytes = accfg_wq_get_max_transfer_size(wq);
      char path[256] = {};
      if (accfg_wq_get_user_dev_path(wq, path, sizeof path) == 0) info.path = path;
      queues.push_back(std::move(info));
    }
  }
  return queues;
}

bool cpu_has(unsigned leaf7_ecx_bit) {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (c >> leaf7_ecx_bit) & 1u;
}
constexpr unsigned kWaitpkgBit = 5, kMovdir64bBit = 28, kEnqcmdBit = 29;

__attribute__((target("movdir64b"))) void submit_dedicated(void* portal, const dsa_hw_desc& d) {
  _mm_sfence();  // the completion record's reset must be visible before the engine writes it
  _movdir64b(portal, &d);
}
// Returns false when the shared queue is full (retry).
__attribute__((target("enqcmd"))) bool submit_shared(void* portal, const dsa_hw_desc& d) {
  _mm_sfence();
  return _enqcmd(portal, &d) == 0;
}
__attribute__((target("waitpkg"))) void wait_umwait(volatile std::uint8_t* status) {
  while (*status == 0) {
    _umonitor(const_cast<std::uint8_t*>(status));
    if (*status != 0) break;
    _umwait(0, __rdtsc() + 100000);  // C0.2, bounded so a lost wake-up costs ~30 us at most
  }
}

class DsaMover final : public Mover {
 public:
  DsaMover(WorkQueueInfo wq, void* portal, int fd)
      : wq_(std::move(wq)), portal_(portal), fd_(fd), umwait_(cpu_has(kWaitpkgBit)) {}
  ~DsaMover() override {
    munmap(portal_, 0x1000);
    close(fd_);
  }

  std::string_view name() const override { return "dsa"; }
  std::string describe() const override {
    return fmt::format("dsa mover: {}/{} ({}, {}), memmove with cache control, {} waits",
                       wq_.device, wq_.name, wq_.shared ? "shared, ENQCMD" : "dedicated, MOVDIR64B",
                       wq_.block_on_fault ? "block on fault" : "faults retried by the CPU",
                       umwait_ ? "umwait" : "pause");
  }

  void open(const MoverSetup& setup) override {
    slots_ = setup.slots;
    const std::size_t bytes = sizeof(Entry) * static_cast<std::size_t>(setup.lanes * setup.slots);
    entries_.reset(static_cast<Entry*>(std::aligned_alloc(64, bytes)));
    if (!entries_) throw Error("dsa mover: cannot allocate completion records");
    std::memset(static_cast<void*>(entries_.get()), 0, bytes);
  }

  void start_copy(int lane, int slot, void* dst, const void* src, std::size_t bytes) override {
    if (bytes > wq_.max_transfer_bytes || bytes > 0xffffffffu)
      throw UsageError(
          fmt::format("dsa mover: a block of {} bytes exceeds the work queue's "
                      "maximum transfer of {} bytes; use a smaller --block",
                      bytes, wq_.max_transfer_bytes));
    Entry& e = entries_.get()[lane * slots_ + slot];
    e.record.status = 0;
    e.desc = make_memmove(dst, src, static_cast<std::uint32_t>(bytes), &e.record,
                          memmove_flags(true, wq_.block_on_fault));
    submit(e.desc);
  }

  void wait(int lane, int slot) override {
    Entry& e = entries_.get()[lane * slots_ + slot];
    for (;;) {
      if (umwait_)
        wait_umwait(&e.record.status);
      else
        movers::spin_until([&] { return e.record.status != 0; });
      switch (classify(e.record.status)) {
        case Outcome::Success:
          e.record.status = 0;
          return;
        case Outcome::PageFault: {
          // Touch the page the engine could not translate (a read suffices for sources; the
          // staging buffers are written at allocation), then copy the rest.
          volatile const char* p = reinterpret_cast<const char*>(e.record.fault_addr);
          (void)*p;
          e.desc = resume_after_fault(e.desc, e.record);
          e.record.status = 0;
          submit(e.desc);
          break;
        }
        default: {
          std::uint8_t status = e.record.status;
          e.record.status = 0;
          throw MoverError(
              fmt::format("dsa mover: {} on {}: {}", "memmove", wq_.name, status_text(status)));
        }
        case Outcome::Pending:
          break;
      }
    }
  }

 private:
  struct alignas(64) Entry {
    dsa_completion_record record;  // 32-byte aligned, as the engine requires
    dsa_hw_desc desc;
  };
  void submit(const dsa_hw_desc& d) {
    if (!wq_.shared) {
      submit_dedicated(portal_, d);
      return;
    }
    movers::spin_until([&] { return submit_shared(portal_, d); });
  }

  WorkQueueInfo wq_;
  void* portal_;
  int fd_;
  bool umwait_;
  int slots_ = 0;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<Entry, Free> entries_;
};

}  // namespace

std::unique_ptr<Mover> make_dsa_mover(const MoverOptions& options) {
  std::vector<WorkQueueInfo> queues = list_work_queues();
  WorkQueueInfo wq = select_work_queue(queues, options.dsa_wq);
  unsigned needed = wq.shared ? kEnqcmdBit : kMovdir64bBit;
  if (!cpu_has(needed))
    throw UsageError(fmt::format("no DSA work queue found: {} needs {}, which this CPU lacks",
                                 wq.name, wq.shared ? "ENQCMD" : "MOVDIR64B"));
  int fd = ::open(wq.path.c_str(), O_RDWR);
  if (fd < 0)
    throw Error(fmt::format("dsa mover: cannot open {}: {}", wq.path, std::strerror(errno)));
  void* portal = mmap(nullptr, 0x1000, PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (portal == MAP_FAILED) {
    int err = errno;
    close(fd);
    throw Error(
        fmt::format("dsa mover: cannot map the portal of {}: {}", wq.path, std::strerror(err)));
  }
  return std::make_unique<DsaMover>(std::move(wq), portal, fd);
}

}  // namespace conveyor::movers::dsa
