// Pipeline: per-thread rings of staging buffers fed by a Mover while the thread computes.
#include "conveyor/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "core/thread_team.hpp"

namespace conveyor {
namespace {

constexpr std::size_t kAlignment = 64;
// Elements computed between two prefetch hints of the prefetch mover: 16 KiB per input keeps the
// hints a little ahead of the loads without flooding the fill buffers.
constexpr std::size_t kPrefetchPiece = 2048;

// CPUs the computing team does not use, in scatter order, for copy threads.
std::vector<int> spare_cpus(const std::vector<int>& used) {
  std::vector<int> spare;
  if (used.empty()) return spare;
  int cpus = static_cast<int>(std::thread::hardware_concurrency());
  try {
    for (int cpu : core::ThreadTeam::placement(cpus, ThreadBinding::Scatter))
      if (std::find(used.begin(), used.end(), cpu) == used.end()) spare.push_back(cpu);
  } catch (const Error&) {
  }
  return spare;
}

}  // namespace

std::string_view to_string(PipelineStrategy strategy) {
  switch (strategy) {
    case PipelineStrategy::All:
      return "all";
    case PipelineStrategy::Split:
      return "split";
    case PipelineStrategy::Auto:
      return "auto";
  }
  return "?";
}

PipelineStrategy parse_pipeline_strategy(std::string_view text) {
  if (text == "all") return PipelineStrategy::All;
  if (text == "split") return PipelineStrategy::Split;
  if (text == "auto") return PipelineStrategy::Auto;
  throw UsageError(fmt::format("unknown strategy '{}' (all, split, auto)", text));
}

struct Pipeline::Lane {
  double* ring = nullptr;               // depth slots x 2 inputs x block elements
  std::string error;                    // the first mover failure of the last run
  std::size_t staged = 0, dropped = 0;  // copies used / dropped by the mover in the last run
};

struct Pipeline::Team {
  Team(int threads, ThreadBinding binding)
      : team(threads, core::ThreadTeam::placement(threads, binding)) {}
  core::ThreadTeam team;
};

Pipeline::Pipeline(std::unique_ptr<Mover> mover, PipelineConfig config)
    : mover_(std::move(mover)), config_(std::move(config)) {
  if (!mover_) throw UsageError("pipeline: no mover");
  if (config_.threads < 1) throw UsageError("pipeline: threads must be at least 1");
  if (config_.depth < 1 || config_.depth > 1024)
    throw UsageError(fmt::format("pipeline: depth must be 1..1024, not {}", config_.depth));
  if (config_.block_bytes < kAlignment || config_.block_bytes % kAlignment != 0)
    throw UsageError(
        fmt::format("pipeline: block must be a multiple of 64 bytes, not {}", config_.block_bytes));
  if (config_.strategy == PipelineStrategy::Auto)
    throw UsageError("pipeline: resolve strategy auto first (run_pipeline_sweep does)");
  if (static_cast<bool>(config_.allocate) != static_cast<bool>(config_.release))
    throw UsageError("pipeline: allocate and release go together");
  team_ = std::make_unique<Team>(config_.threads, config_.binding);
  lanes_.resize(static_cast<std::size_t>(config_.threads));
  if (mover_->stages()) {
    const std::size_t ring_bytes =
        config_.block_bytes * 2 * static_cast<std::size_t>(config_.depth);
    for (std::size_t l = 0; l < lanes_.size(); ++l) {
      void* p = config_.allocate ? config_.allocate(ring_bytes)
                                 : std::aligned_alloc(kAlignment, ring_bytes);
      if (!p) {
        release_rings();
        throw Error(
            fmt::format("pipeline: cannot allocate a staging ring of {} bytes ({} slots x "
                        "2 inputs x {} bytes) for thread {}",
                        ring_bytes, config_.depth, config_.block_bytes, l));
      }
      lanes_[l].ring = static_cast<double*>(p);
    }
    // Touch each ring from its own thread: first-touch placement, and no page faults later
    // (a DSA engine without block-on-fault would stop at each).
    team_->team.run([&](int member) {
      std::memset(lanes_[static_cast<std::size_t>(member)].ring, 0, ring_bytes);
    });
  }
  try {
    mover_->open({config_.threads, 2 * config_.depth, spare_cpus(team_->team.cpus())});
  } catch (...) {
    release_rings();
    throw;
  }
}

Pipeline::~Pipeline() { release_rings(); }

void Pipeline::release_rings() {
  for (auto& lane : lanes_) {
    if (!lane.ring) continue;
    if (config_.release)
      config_.release(lane.ring);
    else
      std::free(lane.ring);
    lane.ring = nullptr;
  }
}

double Pipeline::run(const BlockKernel& kernel, const BlockArrays& arrays) {
  if (kernel.inputs != 1 && kernel.inputs != 2)
    throw UsageError("pipeline: a block kernel has 1 or 2 inputs");
  if (!kernel.body) throw UsageError("pipeline: block kernel without a body");
  if (arrays.n == 0) return 0;
  if (!arrays.in0 || (kernel.inputs == 2 && !arrays.in1) || (kernel.writes && !arrays.out))
    throw UsageError("pipeline: missing array");
  std::vector<double> partial(lanes_.size(), 0.0);
  for (auto& lane : lanes_) {
    lane.error.clear();
    lane.staged = lane.dropped = 0;
  }
  team_->team.run([&](int member) {
    run_lane(member, kernel, arrays, &partial[static_cast<std::size_t>(member)]);
  });
  for (const auto& lane : lanes_)
    if (!lane.error.empty())
      throw Error(
          fmt::format("{}; the remaining blocks were computed from the source arrays "
                      "directly, so the destination is complete",
                      lane.error));
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

void Pipeline::run_lane(int member, const BlockKernel& kernel, const BlockArrays& arrays,
                        double* partial) {
  Lane& lane = lanes_[static_cast<std::size_t>(member)];
  const std::size_t threads = lanes_.size();
  // Chunks of whole cache lines so that every thread's non-temporal stores stay aligned.
  const std::size_t chunk = ((arrays.n + threads - 1) / threads + 7) / 8 * 8;
  const std::size_t lo = std::min(arrays.n, chunk * static_cast<std::size_t>(member));
  const std::size_t hi = std::min(arrays.n, lo + chunk);
  if (lo >= hi) return;
  const std::size_t block = config_.block_bytes / sizeof(double);
  const std::size_t blocks = (hi - lo + block - 1) / block;
  const std::size_t depth = static_cast<std::size_t>(config_.depth);
  const bool stages = mover_->stages();
  const double* in[2] = {arrays.in0, arrays.in1};
  const int inputs = kernel.inputs;

  auto staged = [&](int k, std::size_t i) {
    if (config_.strategy == PipelineStrategy::All) return true;
    return inputs == 2 ? k == 1 : (i % 2) == 1;
  };
  auto length = [&](std::size_t i) { return std::min(block, hi - lo - i * block); };
  auto buffer = [&](int k, std::size_t i) {
    return lane.ring + ((i % depth) * 2 + static_cast<std::size_t>(k)) * block;
  };
  auto slot = [&](int k, std::size_t i) { return static_cast<int>((i % depth) * 2 + k); };

  const bool use_mover = stages && phase_ != PipelinePhase::ComputeOnly;
  bool direct = false;     // after a mover failure: compute from the sources
  std::size_t issued = 0;  // blocks whose copies have been started
  std::size_t waited = 0;  // blocks whose copies have been waited for
  auto issue_until = [&](std::size_t end) {
    for (; issued < std::min(end, blocks); ++issued)
      for (int k = 0; k < inputs; ++k)
        if (staged(k, issued))
          mover_->start_copy(member, slot(k, issued), buffer(k, issued),
                             in[k] + lo + issued * block, length(issued) * sizeof(double));
  };
  // Waits for the copies of block j; returns false when one failed (recording the first failure
  // unless `quiet`). Every slot of the block is idle afterwards either way.
  // in_ring[k]: block j's input k was staged (false: the mover dropped the copy, read the source).
  bool in_ring[2] = {false, false};
  auto wait_block = [&](std::size_t j, bool quiet) {
    bool ok = true;
    for (int k = 0; k < inputs; ++k) {
      in_ring[k] = false;
      if (!staged(k, j)) continue;
      try {
        // Measuring T_copy needs every copy done: only a full run lets the mover drop copies.
        if (phase_ == PipelinePhase::Full) {
          in_ring[k] = mover_->wait_or_cancel(member, slot(k, j));
        } else {
          mover_->wait(member, slot(k, j));
          in_ring[k] = true;
        }
        ++(in_ring[k] ? lane.staged : lane.dropped);
      } catch (const MoverError& e) {
        if (ok && !quiet)
          lane.error = fmt::format("{} (thread {}, block {} of {})", e.what(), member, j, blocks);
        ok = false;
      }
    }
    return ok;
  };
  auto drain = [&] {
    for (; waited < issued; ++waited) wait_block(waited, true);
  };

  double sum = 0;
  try {
    if (use_mover) issue_until(depth);
    for (std::size_t i = 0; i < blocks; ++i) {
      const std::size_t first = lo + i * block, n = length(i);
      const double* src[2] = {in[0] + first, inputs == 2 ? in[1] + first : nullptr};
      if (use_mover && !direct) {
        const bool ok = wait_block(i, false);
        waited = i + 1;
        if (!ok) {
          drain();
          direct = true;
        }
      }
      if (stages && !direct)
        for (int k = 0; k < inputs; ++k)
          if (staged(k, i) && (!use_mover || in_ring[k])) src[k] = buffer(k, i);
      double* out = kernel.writes ? arrays.out + first : nullptr;
      if (phase_ != PipelinePhase::CopyOnly) {
        if (stages) {
          sum += kernel.body(src[0], src[1], out, n);
        } else {
          // Prefetch mover: hint the same piece `depth` blocks ahead, then compute the piece.
          for (std::size_t p = 0; p < n; p += kPrefetchPiece) {
            const std::size_t m = std::min(kPrefetchPiece, n - p);
            const std::size_t ahead = first + p + depth * block;
            if (ahead < hi)
              for (int k = 0; k < inputs; ++k)
                if (staged(k, i + depth))
                  mover_->prefetch(in[k] + ahead, std::min(m, hi - ahead) * sizeof(double));
            sum +=
                kernel.body(src[0] + p, src[1] ? src[1] + p : nullptr, out ? out + p : nullptr, m);
          }
        }
      }
      if (use_mover && !direct) issue_until(i + 1 + depth);
    }
  } catch (...) {
    // A kernel or a mover call threw: no copy may still target the ring when we leave.
    if (use_mover && !direct) drain();
    throw;
  }
  *partial = sum;
}

double Pipeline::staged_fraction() const {
  std::size_t staged = 0, dropped = 0;
  for (const auto& lane : lanes_) staged += lane.staged, dropped += lane.dropped;
  return staged + dropped == 0 ? 0.0 : static_cast<double>(staged) / (staged + dropped);
}

double Pipeline::run(StreamKernel kernel, double* a, double* b, double* c, std::size_t n,
                     double scalar) {
  return run(stream_block_kernel(kernel, config_.variant, scalar),
             stream_block_arrays(kernel, a, b, c, n));
}

}  // namespace conveyor
