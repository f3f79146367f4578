#include "copy_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "check.hpp"
#include "conveyor/error.hpp"

namespace conveyor::backend::cuda {

CopyEngine::CopyEngine(int ordinal, int slots, bool timing) : ordinal_(ordinal), timing_(timing) {
  if (slots < 1)
    throw UsageError(fmt::format("copy engine needs at least one slot, not {}", slots));
  use_device(ordinal_);
  stream_ = make_stream();
  slots_.resize(static_cast<std::size_t>(slots));
  for (auto& slot : slots_) {
    if (timing_) slot.start = make_event(true);
    slot.stop = make_event(timing_);
  }
}

CopyEngine::Ticket CopyEngine::copy(void* dst, const void* src, std::size_t bytes) {
  use_device(ordinal_);
  const Ticket ticket = next_;
  Slot& slot = slots_[ticket % slots_.size()];
  if (timing_) CONVEYOR_CUDA_CHECK(cudaEventRecord(slot.start.get(), stream_.get()));
  CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_.get()));
  CONVEYOR_CUDA_CHECK(cudaEventRecord(slot.stop.get(), stream_.get()));
  slot.ticket = ticket;
  ++next_;
  return ticket;
}

const CopyEngine::Slot& CopyEngine::slot_for(Ticket ticket) const {
  if (ticket >= next_)
    throw UsageError(fmt::format("copy ticket {} was never issued (next is {})", ticket, next_));
  const Ticket oldest = next_ > slots_.size() ? next_ - slots_.size() : 0;
  return slots_[std::max(ticket, oldest) % slots_.size()];
}

bool CopyEngine::done(Ticket ticket) const {
  const cudaError_t state = cudaEventQuery(slot_for(ticket).stop.get());
  if (state == cudaErrorNotReady) return false;
  check(state, "cudaEventQuery(stop)", __FILE__, __LINE__);
  return true;
}

void CopyEngine::wait(Ticket ticket) const {
  CONVEYOR_CUDA_CHECK(cudaEventSynchronize(slot_for(ticket).stop.get()));
}

void CopyEngine::wait_all() const { CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }

double CopyEngine::seconds(Ticket ticket) const {
  const Slot& slot = slot_for(ticket);
  if (!timing_ || slot.ticket != ticket)
    throw Error(
        fmt::format("copy {}: no timing kept ({})", ticket,
                    timing_ ? "overwritten by later copies" : "engine made without timing"));
  CONVEYOR_CUDA_CHECK(cudaEventSynchronize(slot.stop.get()));
  float ms = 0;
  CONVEYOR_CUDA_CHECK(cudaEventElapsedTime(&ms, slot.start.get(), slot.stop.get()));
  return ms * 1e-3;
}

}  // namespace conveyor::backend::cuda
