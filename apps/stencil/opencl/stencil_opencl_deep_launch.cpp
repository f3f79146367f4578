// Enqueues the OpenCL work of temporal blocking (built when CMake found OpenCL): the extended tile
// gathered by rectangle copies, depth - 1 sweeps and the last sweep, in scratch kept per queue.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "common/opencl/opencl_calls.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "conveyor/error.hpp"
#include "stencil/opencl/stencil_opencl_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

constexpr common::OpenclCalls kDeepCl{"OpenCL stencil"};

// The two scratch tiles of one queue. The queue is in order, so one task's scratch is free once the
// next task's kernels run. It retains the queue, so that no other queue can take the address while
// it lives.
struct Scratch {
  cl_command_queue queue = nullptr;
  cl_mem x = nullptr, y = nullptr;
  std::size_t bytes = 0;  // of each tile

  explicit Scratch(cl_command_queue q) : queue(q) {
    kDeepCl.check(clRetainCommandQueue(queue), "clRetainCommandQueue");
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // clRelease* defers the release until the commands that use the object have finished.
  ~Scratch() {
    release();
    clReleaseCommandQueue(queue);
  }
  void release() {
    if (x) clReleaseMemObject(x);
    if (y) clReleaseMemObject(y);
    x = y = nullptr;
    bytes = 0;
  }
  // Grows both tiles to `need` bytes; a larger tile comes rarely (the warm-up's, then the run's),
  // so tasks allocate nothing in steady state.
  void reserve(std::size_t need) {
    if (need <= bytes) return;
    release();
    cl_context context = nullptr;
    kDeepCl.check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr),
                  "clGetCommandQueueInfo");
    cl_int status = CL_SUCCESS;
    x = clCreateBuffer(context, CL_MEM_READ_WRITE, need, nullptr, &status);
    kDeepCl.check(status, "clCreateBuffer (scratch)");
    y = clCreateBuffer(context, CL_MEM_READ_WRITE, need, nullptr, &status);
    kDeepCl.check(status, "clCreateBuffer (scratch)");
    bytes = need;
  }
};

// A few queues' scratch (one per device of each runtime), the oldest dropped past the cap so that a
// process making many runtimes does not keep it. Leaked at exit on purpose: releasing OpenCL
// objects from a static destructor may run after the implementation has shut down.
std::shared_ptr<Scratch> scratch_for(cl_command_queue queue) {
  static auto* mutex = new std::mutex;
  static auto* scratches = new std::vector<std::shared_ptr<Scratch>>;
  constexpr std::size_t kCap = 8;
  std::lock_guard<std::mutex> lock(*mutex);
  for (const auto& s : *scratches)
    if (s->queue == queue) return s;
  if (scratches->size() >= kCap) scratches->erase(scratches->begin());
  scratches->push_back(std::make_shared<Scratch>(queue));
  return scratches->back();
}

// The global size rounded up to 64 rows x 8 columns (the kernels mask the excess off), the
// work-group shape left to the driver. PoCL compiles a kernel once per work-group shape it picks,
// which follows the global size: exact sizes (the sweeps' regions shrink by two cells each) built
// a dozen variants, seconds on a cold kernel cache; rounded, a tile's sweeps share one.
void enqueue(cl_command_queue queue, cl_kernel kernel, std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0) return;
  std::size_t global[2] = {(rows + 63) / 64 * 64, (cols + 7) / 8 * 8};
  kDeepCl.check(
      clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global, nullptr, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel");
}

}  // namespace

void opencl_jacobi_deep_enqueue(void* queue_ptr, void* kernel_ptr, const DeepTiles& t,
                                const Coefficients& c) {
  auto kernel = static_cast<cl_kernel>(kernel_ptr);
  if (!kernel) throw Error("OpenCL stencil: the codelet has no kernel (program not built)");
  auto queue = static_cast<cl_command_queue>(queue_ptr);
  std::shared_ptr<Scratch> s = scratch_for(queue);
  // The program's two other kernels, this thread's own (it alone sets their arguments).
  common::OpenclKernelCache& cache = common::opencl_kernel_cache();
  cl_kernel sweep = cache.kernel(kDeepCl, kernel, "jacobi_sweep");
  cl_kernel last = cache.kernel(kDeepCl, kernel, "jacobi_last");
  const Extended e = extended(t);
  s->reserve(static_cast<std::size_t>(e.size()) * sizeof(double));

  // The extended tile, piece by piece, as rectangle copies (each column of a piece is a "row" of
  // the copy): a gather kernel, one branchy work-item per cell, cost PoCL three sweeps' time.
  const long ld_bytes = static_cast<long>(e.rows) * sizeof(double);
  auto place = [&](void* piece, int height, int width, int row0, int col0) {
    if (!piece) return;
    const std::size_t src_origin[3] = {0, 0, 0};
    const std::size_t dst_origin[3] = {static_cast<std::size_t>(row0) * sizeof(double),
                                       static_cast<std::size_t>(col0), 0};
    const std::size_t region[3] = {static_cast<std::size_t>(height) * sizeof(double),
                                   static_cast<std::size_t>(width), 1};
    kDeepCl.check(clEnqueueCopyBufferRect(
                      queue, static_cast<cl_mem>(piece), s->x, src_origin, dst_origin, region,
                      region[0], 0, static_cast<std::size_t>(ld_bytes), 0, 0, nullptr, nullptr),
                  "clEnqueueCopyBufferRect");
  };
  const int w = t.width, below = e.north + t.rows, right = e.west + t.cols;
  place(t.in, t.rows, t.cols, e.north, e.west);
  place(t.strips[0], w, t.cols, 0, e.west);       // north
  place(t.strips[1], w, t.cols, below, e.west);   // south
  place(t.strips[2], t.rows, w, e.north, 0);      // west
  place(t.strips[3], t.rows, w, e.north, right);  // east
  place(t.corners[kNorthWest], w, w, 0, 0);
  place(t.corners[kNorthEast], w, w, 0, right);
  place(t.corners[kSouthWest], w, w, below, 0);
  place(t.corners[kSouthEast], w, w, below, right);
  // On a side without a neighbour the extended tile's edge line is the grid's fixed boundary, read
  // by every sweep from either scratch: a tile on the grid's edge copies the whole of x into y
  // (one plain copy; the sweeps overwrite the rest).
  if (t.depth > 1 && (!e.north || !e.south || !e.west || !e.east))
    kDeepCl.check(clEnqueueCopyBuffer(queue, s->x, s->y, 0, 0,
                                      static_cast<std::size_t>(e.size()) * sizeof(double), 0,
                                      nullptr, nullptr),
                  "clEnqueueCopyBuffer");

  cl_mem x = s->x, y = s->y;
  for (int step = 1; step < t.depth; ++step) {
    const Span rows = sweep_span(e.rows, e.north, e.south, step);
    const Span cols = sweep_span(e.cols, e.west, e.east, step);
    cl_kernel k = sweep;
    kDeepCl.arg(k, 0, x);
    kDeepCl.arg(k, 1, y);
    kDeepCl.arg(k, 2, cl_int{e.rows});
    kDeepCl.arg(k, 3, cl_int{rows.lo});
    kDeepCl.arg(k, 4, cl_int{cols.lo});
    kDeepCl.arg(k, 5, cl_int{rows.count()});
    kDeepCl.arg(k, 6, cl_int{cols.count()});
    kDeepCl.arg(k, 7, cl_double{c.c0});
    kDeepCl.arg(k, 8, cl_double{c.c1});
    enqueue(queue, k, static_cast<std::size_t>(rows.count()),
            static_cast<std::size_t>(cols.count()));
    std::swap(x, y);
  }

  cl_kernel l = last;
  kDeepCl.arg(l, 0, x);
  kDeepCl.arg(l, 1, static_cast<cl_mem>(t.out));
  kDeepCl.arg(l, 2, cl_int{t.rows});
  kDeepCl.arg(l, 3, cl_int{t.cols});
  kDeepCl.arg(l, 4, cl_int{t.bits});
  kDeepCl.arg(l, 5, cl_int{t.width});
  kDeepCl.arg(l, 6, cl_double{c.c0});
  kDeepCl.arg(l, 7, cl_double{c.c1});
  enqueue(queue, l, static_cast<std::size_t>(t.rows), static_cast<std::size_t>(t.cols));

  // The output's strips and corners, for the neighbours' tasks of the next round: rectangles of
  // the tile, copied out the way the gather copied pieces in.
  const std::size_t tile_ld = static_cast<std::size_t>(t.rows) * sizeof(double);
  auto take = [&](void* piece, int height, int width, int row0, int col0) {
    if (!piece) return;
    const std::size_t src_origin[3] = {static_cast<std::size_t>(row0) * sizeof(double),
                                       static_cast<std::size_t>(col0), 0};
    const std::size_t dst_origin[3] = {0, 0, 0};
    const std::size_t region[3] = {static_cast<std::size_t>(height) * sizeof(double),
                                   static_cast<std::size_t>(width), 1};
    kDeepCl.check(clEnqueueCopyBufferRect(queue, static_cast<cl_mem>(t.out),
                                          static_cast<cl_mem>(piece), src_origin, dst_origin,
                                          region, tile_ld, 0, region[0], 0, 0, nullptr, nullptr),
                  "clEnqueueCopyBufferRect");
  };
  const int last_row = t.rows - w, last_col = t.cols - w;
  take(t.out_strips[0], w, t.cols, 0, 0);
  take(t.out_strips[1], w, t.cols, last_row, 0);
  take(t.out_strips[2], t.rows, w, 0, 0);
  take(t.out_strips[3], t.rows, w, 0, last_col);
  take(t.out_corners[kNorthWest], w, w, 0, 0);
  take(t.out_corners[kNorthEast], w, w, 0, last_col);
  take(t.out_corners[kSouthWest], w, w, last_row, 0);
  take(t.out_corners[kSouthEast], w, w, last_row, last_col);
}

}  // namespace conveyor::apps::stencil
