#include "conveyor/stream.hpp"

#include "conveyor/error.hpp"
#include "cpu_device.hpp"

namespace conveyor::cpu {

std::unique_ptr<StreamArrays> CpuDevice::make_stream_arrays(const StreamConfig&) {
  throw Error("cpu stream arrays: not built yet");
}

}  // namespace conveyor::cpu
