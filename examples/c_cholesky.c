/* The block Cholesky factorisation of seed 003 (its program 2), written in C against
 * conveyor.h: potrf, trsm and syrk are host tasklets, gemm a target tasklet with map clauses and
 * async, and the runtime moves the tiles. Run with a device it prints the seed's table 3: the
 * copies with the coherent runtime and without the optimisation (naive).
 *
 *   example_c_cholesky                          CPUs only (gemm's host implementation)
 *   example_c_cholesky --device opencl:0        gemm offloaded; 32 x 32 tiles give 1425 vs 19840
 *   example_c_cholesky --device cuda:0          the same on a CUDA GPU (c_cholesky_gemm.cu)
 *   example_c_cholesky --tiles 8 --block 64 --device opencl:0 --coherence coherent
 *
 * The matrix is stored tile by tile (each tile a contiguous, column-major block x block array),
 * as the seed's A[i][j] tiles are, so that each map descriptor is one contiguous range. */
#include <conveyor/conveyor.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int tiles, block;
  float* tile_base;
} Matrix;

static float* tile(const Matrix* m, int i, int j) {
  return m->tile_base + ((size_t)i + (size_t)j * (size_t)m->tiles) * (size_t)m->block * m->block;
}

/* Element (r, c) of the whole matrix, r >= c. */
static float* element(const Matrix* m, int r, int c) {
  int b = m->block;
  return tile(m, r / b, c / b) + (r % b) + (size_t)(c % b) * b;
}

/* A symmetric, diagonally dominant (so positive definite) matrix; lower triangle only. */
static void fill(Matrix* m) {
  int n = m->tiles * m->block;
  for (int c = 0; c < n; ++c)
    for (int r = c; r < n; ++r) *element(m, r, c) = r == c ? (float)n : 1.0f / (float)(1 + r - c);
}

/* ---- tile kernels: host functions receive void* args (tiles, then &block) ---- */

static int potrf(void* const* args, int nargs) {
  float* a = args[0];
  int b = *(const int*)args[nargs - 1];
  for (int j = 0; j < b; ++j) {
    float d = a[j + j * b];
    for (int k = 0; k < j; ++k) d -= a[j + k * b] * a[j + k * b];
    if (d <= 0) return 1; /* not positive definite: fails the tasklet */
    d = sqrtf(d);
    a[j + j * b] = d;
    for (int i = j + 1; i < b; ++i) {
      float s = a[i + j * b];
      for (int k = 0; k < j; ++k) s -= a[i + k * b] * a[j + k * b];
      a[i + j * b] = s / d;
    }
  }
  return 0;
}

/* B = B L^-T, L = the lower triangle of the diagonal tile. */
static int trsm(void* const* args, int nargs) {
  const float* l = args[0];
  float* x = args[1];
  int b = *(const int*)args[nargs - 1];
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      float s = x[r + c * b];
      for (int k = 0; k < c; ++k) s -= x[r + k * b] * l[c + k * b];
      x[r + c * b] = s / l[c + c * b];
    }
  return 0;
}

/* C = C - A A^T (lower triangle). */
static int syrk(void* const* args, int nargs) {
  const float* a = args[0];
  float* c = args[1];
  int b = *(const int*)args[nargs - 1];
  for (int j = 0; j < b; ++j)
    for (int i = j; i < b; ++i) {
      float s = 0;
      for (int k = 0; k < b; ++k) s += a[i + k * b] * a[j + k * b];
      c[i + j * b] -= s;
    }
  return 0;
}

/* C = C - A B^T: gemm's host implementation (used when a CPU worker runs it). */
static int gemm_host(void* const* args, int nargs) {
  const float *a = args[0], *bt = args[1];
  float* c = args[2];
  int b = *(const int*)args[nargs - 1];
  for (int j = 0; j < b; ++j)
    for (int i = 0; i < b; ++i) {
      float s = 0;
      for (int k = 0; k < b; ++k) s += a[i + k * b] * bt[j + k * b];
      c[i + j * b] -= s;
    }
  return 0;
}

static const char* kGemmSource =
    "__kernel void gemm(__global const float* a, __global const float* bt,\n"
    "                   __global float* c, int b) {\n"
    "  int i = get_global_id(0), j = get_global_id(1);\n"
    "  float s = 0.0f;\n"
    "  for (int k = 0; k < b; ++k) s += a[i + k * b] * bt[j + k * b];\n"
    "  c[i + j * b] -= s;\n"
    "}\n";

#ifdef CONVEYOR_EXAMPLE_CUDA
/* c_cholesky_gemm.cu: the same gemm as a CUDA kernel, launched on the stream Conveyor gives. */
int c_cholesky_gemm_cuda(void* stream, void* const* args, int nargs);
#endif

/* ---- the seed's program 2 ---- */

static int check(conveyor_status status, const char* what) {
  if (status == CONVEYOR_OK) return 0;
  fprintf(stderr, "c_cholesky: %s: %s\n", what, conveyor_last_error());
  return 1;
}

typedef struct {
  unsigned long long tasklets, gemm;
  conveyor_stats stats;
} Run;

static int submit_all(conveyor_runtime* rt, conveyor_kernel* gemm, Matrix* m, Run* run) {
  int nt = m->tiles;
  size_t bytes = (size_t)m->block * m->block * sizeof(float);
  void* block = &m->block;
  for (int k = 0; k < nt; ++k) {
    void* akk = tile(m, k, k);
    void* potrf_args[] = {akk, block};
    if (check(conveyor_tasklet_create(rt, potrf, 2, potrf_args, 0, NULL, 1, &akk), "potrf"))
      return 1;
    ++run->tasklets;
    for (int i = k + 1; i < nt; ++i) {
      void* aik = tile(m, i, k);
      void* trsm_args[] = {akk, aik, block};
      if (check(conveyor_tasklet_create(rt, trsm, 3, trsm_args, 1, &akk, 1, &aik), "trsm"))
        return 1;
      ++run->tasklets;
    }
    for (int i = k + 1; i < nt; ++i) {
      void* aik = tile(m, i, k);
      for (int j = k + 1; j < i; ++j) {
        void* ajk = tile(m, j, k);
        void* aij = tile(m, i, j);
        void* in[] = {aik, ajk};
        conveyor_map_desc maps[] = {conveyor_make_map_desc(aik, 0, bytes, CONVEYOR_MAP_TO),
                                    conveyor_make_map_desc(ajk, 0, bytes, CONVEYOR_MAP_TO),
                                    conveyor_make_map_desc(aij, 0, bytes, CONVEYOR_MAP_TOFROM)};
        conveyor_arg args[] = {conveyor_arg_map(0), conveyor_arg_map(1), conveyor_arg_map(2),
                               conveyor_arg_value(&m->block, sizeof m->block)};
        if (check(conveyor_tasklet_target_create(rt, gemm, 4, args, 2, in, 1, &aij, 3, maps, 1),
                  "gemm"))
          return 1;
        ++run->tasklets;
        ++run->gemm;
      }
      void* aii = tile(m, i, i);
      void* syrk_args[] = {aik, aii, block};
      if (check(conveyor_tasklet_create(rt, syrk, 3, syrk_args, 1, &aik, 1, &aii), "syrk"))
        return 1;
      ++run->tasklets;
    }
  }
  return 0;
}

/* Factorises m in place with a fresh runtime; fills run. */
static int factorize(Matrix* m, const char* device, const char* coherence, Run* run) {
  conveyor_options o;
  conveyor_options_init(&o);
  o.cpus = 2;
  o.pin = 0;
  o.coherence = coherence;
  if (device && strcmp(device, "cpu") != 0) {
    o.devices = device;
    o.scheduler = "offload"; /* gemm on the device, the rest on the CPUs, as in the seed */
    o.offload = "gemm";
  }
  conveyor_runtime* rt = conveyor_runtime_create(&o);
  if (!rt) return check(CONVEYOR_ERROR_USAGE, "runtime");
  conveyor_kernel_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.name = "gemm";
  desc.opencl_source = kGemmSource;
  desc.host = gemm_host;
#ifdef CONVEYOR_EXAMPLE_CUDA
  desc.cuda_launch = c_cholesky_gemm_cuda;
#endif
  desc.work_dim = 2;
  desc.global_size[0] = desc.global_size[1] = (size_t)m->block;
  int failed = 0;
  conveyor_kernel* gemm = conveyor_kernel_create(rt, &desc);
  if (!gemm) failed = check(CONVEYOR_ERROR_USAGE, "kernel");
  /* Every lower tile is a range the dependency lists may name, mapped or not. */
  size_t bytes = (size_t)m->block * m->block * sizeof(float);
  for (int j = 0; j < m->tiles && !failed; ++j)
    for (int i = j; i < m->tiles && !failed; ++i)
      failed = check(conveyor_register(rt, tile(m, i, j), bytes), "register");
  memset(run, 0, sizeof *run);
  if (!failed) failed = submit_all(rt, gemm, m, run);
  if (!failed) failed = check(conveyor_wait(rt), "wait"); /* #pragma omp taskwait */
  if (!failed) failed = check(conveyor_get_stats(rt, &run->stats), "stats");
  conveyor_runtime_destroy(rt);
  return failed;
}

/* ||A - L L^T||_F / ||A||_F over the lower triangle. */
static double residual(const Matrix* l, const Matrix* a) {
  int n = l->tiles * l->block;
  double diff = 0, norm = 0;
  for (int c = 0; c < n; ++c)
    for (int r = c; r < n; ++r) {
      double s = 0;
      for (int k = 0; k <= c; ++k) s += (double)*element(l, r, k) * *element(l, c, k);
      double x = *element(a, r, c);
      diff += (x - s) * (x - s);
      norm += x * x;
    }
  return sqrt(diff / norm);
}

int main(int argc, char** argv) {
  int tiles = 32, block = 16;
  const char* device = "cpu";
  const char* coherence = "both";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--tiles") && i + 1 < argc)
      tiles = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--block") && i + 1 < argc)
      block = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else if (!strcmp(argv[i], "--coherence") && i + 1 < argc)
      coherence = argv[++i];
    else {
      fprintf(stderr,
              "usage: %s [--tiles N] [--block B] [--device cpu|opencl:0|cuda:0]"
              " [--coherence both|coherent|naive]\n",
              argv[0]);
      return 2;
    }
  }
  if (tiles < 1 || block < 1 || tiles > 1024 || block > 1024) {
    fprintf(stderr, "c_cholesky: --tiles and --block must be in 1..1024\n");
    return 2;
  }
  size_t elems = (size_t)tiles * tiles * block * block;
  Matrix a = {tiles, block, calloc(elems, sizeof(float))};
  Matrix l = {tiles, block, calloc(elems, sizeof(float))};
  if (!a.tile_base || !l.tile_base) {
    fprintf(stderr, "c_cholesky: out of memory\n");
    return 1;
  }
  fill(&a);

  const char* policies[2] = {"coherent", "naive"};
  int first = strcmp(coherence, "naive") == 0, last = strcmp(coherence, "coherent") == 0 ? 0 : 1;
  Run runs[2];
  memset(runs, 0, sizeof runs);
  double worst = 0;
  for (int p = first; p <= last; ++p) {
    memcpy(l.tile_base, a.tile_base, elems * sizeof(float));
    if (factorize(&l, device, policies[p], &runs[p])) return 1;
    double r = residual(&l, &a);
    if (r > worst) worst = r;
  }
  printf(
      "block Cholesky in C: %d x %d tiles of %d x %d (n = %d), %llu tasklets (%llu gemm) on %s\n",
      tiles, tiles, block, block, tiles * block, runs[first].tasklets, runs[first].gemm, device);
  printf("%-10s %8s %8s %8s\n", "copies", "H2D", "D2H", "total");
  for (int p = first; p <= last; ++p) {
    const conveyor_stats* s = &runs[p].stats;
    printf("%-10s %8llu %8llu %8llu\n", policies[p], (unsigned long long)s->h2d_copies,
           (unsigned long long)s->d2h_copies,
           (unsigned long long)(s->h2d_copies + s->d2h_copies + s->d2d_copies));
  }
  const double bound = 1e-4;
  printf("residual ||A - L L^T|| / ||A|| = %.2e (bound %.0e): %s\n", worst, bound,
         worst <= bound ? "ok" : "FAILED");
  free(a.tile_base);
  free(l.tile_base);
  return worst <= bound ? 0 : 1;
}
