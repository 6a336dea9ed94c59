#!/usr/bin/env python3
"""Context peer for `clab`'s cpu backend: torch.distributed all_reduce on gloo, float32 sum.

    python3 bench/cpu/gloo_allreduce.py [--ranks 2] [--bytes 67108864] [--warmup 5] [--iters 20]

Same method as mpi_allreduce.c (nccl-tests style): one out-of-place-style correctness check
(a fresh tensor, untimed), W warm-up then I timed in-place all_reduce calls after a barrier;
each rank's mean time per call is averaged over ranks (the max over ranks is printed too).
algbw = bytes / mean time, busbw = algbw * 2(n-1)/n, GB = 1e9 B.

Ranks are separate processes (torch.multiprocessing spawn), rendezvous over a file:// store
(no network interface needed).  Prints one line on rank 0:
    RESULT ranks=2 bytes=67108864 warmup=5 iters=20 time_us=... time_max_us=... algbw=... busbw=... wrong=0
"""
import argparse
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, nbytes, warmup, iters, init_file, queue):
    # One thread per rank: the ranks share 2 cores, and clab / Open MPI ranks are single-threaded too.
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    count = nbytes // 4
    idx = torch.arange(count, dtype=torch.int64) % 64
    x = (idx + rank).to(torch.float32)

    # Correctness check, untimed: small integers, exact in float32 in any order.
    chk = x.clone()
    dist.all_reduce(chk, op=dist.ReduceOp.SUM)
    expect = idx.to(torch.float32) * world + world * (world - 1) // 2
    wrong = torch.tensor([int((chk != expect).sum().item())], dtype=torch.int64)
    dist.all_reduce(wrong, op=dist.ReduceOp.SUM)

    for _ in range(warmup):
        dist.all_reduce(chk, op=dist.ReduceOp.SUM)
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(chk, op=dist.ReduceOp.SUM)
    t1 = time.perf_counter()
    mean = torch.tensor([(t1 - t0) / iters], dtype=torch.float64)
    tsum = mean.clone()
    tmax = mean.clone()
    dist.all_reduce(tsum, op=dist.ReduceOp.SUM)
    dist.all_reduce(tmax, op=dist.ReduceOp.MAX)
    if rank == 0:
        avg = tsum.item() / world
        algbw = nbytes / avg / 1e9
        busbw = algbw * 2 * (world - 1) / world
        queue.put(
            f"RESULT ranks={world} bytes={nbytes} warmup={warmup} iters={iters} "
            f"time_us={avg * 1e6:.1f} time_max_us={tmax.item() * 1e6:.1f} "
            f"algbw={algbw:.3f} busbw={busbw:.3f} wrong={int(wrong.item())}"
        )
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--bytes", type=int, default=64 * 1024 * 1024)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    if a.bytes <= 0 or a.bytes % 4:
        sys.exit("--bytes must be a positive multiple of 4")
    # Gloo picks its interface from the hostname unless told: stay on loopback, never a real NIC.
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    fd, init_file = tempfile.mkstemp(prefix="gloo_allreduce_")
    os.close(fd)
    os.unlink(init_file)  # the file store creates it; a stale one would confuse the rendezvous
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    try:
        mp.spawn(worker, args=(a.ranks, a.bytes, a.warmup, a.iters, init_file, queue), nprocs=a.ranks, join=True)
    finally:
        if os.path.exists(init_file):
            os.unlink(init_file)
    line = queue.get()
    print(line, flush=True)
    sys.exit(0 if line.endswith("wrong=0") else 1)


if __name__ == "__main__":
    main()
