// The peer of `conveyor qr --grid` under mpirun: ScaLAPACK's pdgeqrf (Debian
// libscalapack-openmpi-dev) on the same matrix (apps/qr GeneralMatrix), 2D block-cyclic with the
// same block size on the same P x Q grid, timed from a barrier to the slowest rank's return, the
// workspace query and allocation before the barrier. GFLOP/s counts 4/3 n^3, as conveyor qr.
//
//   mpirun -np 4 bench_scalapack_pdgeqrf N NB P Q      (prints one JSON line on rank 0)
//
// OpenBLAS threads per rank come from OPENBLAS_NUM_THREADS, as for any ScaLAPACK program.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/blas_threads.hpp"
#include "qr/qr_matrix.hpp"

extern "C" {
void Cblacs_get(int context, int request, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgeqrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca,
              double* tau, double* work, const int* lwork, int* info);
}

int main(int argc, char** argv) {
  // The peer gets the CPU's own BLAS kernels, as conveyor does (common/blas_threads.hpp).
  conveyor::apps::common::restart_with_the_cpus_blas_kernels(argv);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np P*Q %s N NB P Q\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int n = std::atoi(argv[1]), nb = std::atoi(argv[2]), p = std::atoi(argv[3]),
            q = std::atoi(argv[4]);
  if (n < 1 || nb < 1 || p < 1 || q < 1 || p * q != size) {
    if (rank == 0)
      std::fprintf(stderr, "bench_scalapack_pdgeqrf: bad N NB P Q for %d ranks\n", size);
    MPI_Finalize();
    return 2;
  }
  int ctxt = 0, myrow = 0, mycol = 0, nprow = 0, npcol = 0;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);  // rank = row * Q + col, as conveyor's ProcessGrid
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int zero = 0, one = 1;
  int rows = numroc_(&n, &nb, &myrow, &zero, &nprow);
  int cols = numroc_(&n, &nb, &mycol, &zero, &npcol);
  int lld = std::max(rows, 1), info = 0;
  int desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);

  conveyor::apps::qr::GeneralMatrix a(n);
  std::vector<double> local(static_cast<std::size_t>(lld) * std::max(cols, 1));
  for (int lj = 0; lj < cols; ++lj) {
    int gj = ((lj / nb) * npcol + mycol) * nb + lj % nb;
    for (int li = 0; li < rows; ++li) {
      int gi = ((li / nb) * nprow + myrow) * nb + li % nb;
      local[static_cast<std::size_t>(li) + static_cast<std::size_t>(lj) * lld] = a(gi, gj);
    }
  }
  std::vector<double> tau(static_cast<std::size_t>(std::max(cols, 1)));
  double query = 0;
  const int ask = -1;
  pdgeqrf_(&n, &n, local.data(), &one, &one, desc, tau.data(), &query, &ask, &info);
  int lwork = static_cast<int>(query);
  std::vector<double> work(static_cast<std::size_t>(std::max(lwork, 1)));

  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  pdgeqrf_(&n, &n, local.data(), &one, &one, desc, tau.data(), work.data(), &lwork, &info);
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double time = 0;
  MPI_Reduce(&mine, &time, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf(
        "{\"command\": \"scalapack_pdgeqrf\", \"n\": %d, \"block\": %d, \"grid\": \"%dx%d\", "
        "\"time_s\": %.6f, \"gflops\": %.3f, \"info\": %d}\n",
        n, nb, p, q, time, conveyor::apps::qr::qr_flops(n) / time / 1e9, info);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return info == 0 ? 0 : 1;
}
