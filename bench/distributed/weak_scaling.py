#!/usr/bin/env python3
"""Weak-scaling estimate of the distributed Cholesky to R ranks (one rank per node) from measured
per-rank figures, by the method of docs/distributed.md ("Weak scaling"):

  * the matrix grows with the ranks so that each rank keeps the tiles it has at 1 rank:
    n_R = n_1 sqrt(R), on the most square P x Q grid of R ranks;
  * compute: T_c = (n_R^3 / 3) / (R r), r = one rank's GFLOP/s at this block size (measured);
  * communication per rank: the closed form's messages M(R) / R, each costing the layer's added
    time per message o (measured by bench_distributed_pingpong) plus the network latency a, and
    its bytes / B (network bandwidth, an assumption unless measured between nodes);
  * critical path: t_R = n_R / b steps of potrf + trsm + two message hops;
  * estimate T = max(T_c, T_comm, T_path) (communication overlapped with computation, as the
    trace shows it is), efficiency E = T_c / T; and, as a pessimistic bound without any overlap,
    E0 = T_c / (T_c + T_comm + T_path).

  bench/distributed/weak_scaling.py --gflops-per-rank 12 --overhead-us 51 [--n1 4096 --block 256]
"""
import argparse
import math


def closed_form_messages(t, p, q):
    """Messages of the block-cyclic Cholesky with t tiles per side (apps/cholesky/communication.hpp)."""
    m = 0
    for k in range(t):
        below = t - 1 - k
        m += min(p, below) - (1 if below >= p else 0)
        for i in range(k + 1, t):
            after = t - 1 - i
            m += min(q, i - k) + min(p, after) - (1 if after >= p else 0) - (1 if i - k >= q else 0)
    return m


def square_grid(r):
    p = max(d for d in range(1, int(math.isqrt(r)) + 1) if r % d == 0)
    return p, r // p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gflops-per-rank", type=float, required=True, help="measured, one rank (1e9 flop/s)")
    ap.add_argument("--overhead-us", type=float, required=True, help="layer's added time per message (us)")
    ap.add_argument("--latency-us", type=float, default=2.0, help="network latency (us), default 2")
    ap.add_argument("--bandwidth-gbs", type=float, default=12.5,
                    help="network bandwidth per node (1e9 B/s), default 12.5 (100 Gb/s)")
    ap.add_argument("--n1", type=int, default=4096, help="matrix order on one rank")
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--elem", type=int, default=8, help="bytes per element (8: double)")
    ap.add_argument("--ranks", default="1,4,16,64")
    a = ap.parse_args()

    r = a.gflops_per_rank * 1e9
    b = a.block
    tile_bytes = b * b * a.elem
    hop = (a.overhead_us + a.latency_us) * 1e-6 + tile_bytes / (a.bandwidth_gbs * 1e9)
    print(f"{'ranks':>5} {'grid':>5} {'n':>7} {'messages':>9} {'T_compute s':>11} {'T_comm s':>9} "
          f"{'T_path s':>9} {'T_est s':>8} {'efficiency':>10} {'no overlap':>10}")
    for ranks in (int(x) for x in a.ranks.split(",")):
        p, q = square_grid(ranks)
        n = int(round(a.n1 * math.sqrt(ranks) / b)) * b
        t = n // b
        flops = n ** 3 / 3
        t_compute = flops / (ranks * r)
        m = closed_form_messages(t, p, q)
        t_comm = m / ranks * hop
        t_path = t * ((b ** 3 / 3 + b ** 3) / r + (2 * hop if ranks > 1 else 0))
        t_est = max(t_compute, t_comm, t_path)
        print(f"{ranks:>5} {p}x{q:<3} {n:>7} {m:>9} {t_compute:>11.2f} {t_comm:>9.2f} {t_path:>9.2f} "
              f"{t_est:>8.2f} {t_compute / t_est:>10.2f} {t_compute / (t_compute + t_comm + t_path):>10.2f}")


if __name__ == "__main__":
    main()
