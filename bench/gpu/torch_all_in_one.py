#!/usr/bin/env python3
"""The classic torch.distributed learning script, on NCCL (one GPU per rank): the peer of

    clab run scenarios/all-in-one.scenario.json --ranks 2 --backend nccl

It runs the same operations, in the same order, with the same inputs (see that file), prints
every result as `[Rank r] op: [values]`, and checks each against the value it must have.
Timed from outside, process start to exit (python start-up, `import torch`, spawning the
ranks, CUDA and NCCL initialisation, the operations, shutdown), as `clab run` is.

    python3 bench/gpu/torch_all_in_one.py [--ranks 2] [--quiet]

Ranks are spawned with torch.multiprocessing (as in the PyTorch tutorial), each calls
torch.cuda.set_device(rank) and meets the others over env:// (MASTER_ADDR=127.0.0.1, a free
port) with init_process_group("nccl", device_id=...), which is what torch's documentation
recommends and makes the NCCL communicator up front. Every operation runs natively on NCCL
(ReduceOp.AVG, reduce_scatter, all_to_all, gather, scatter, the object collectives included):
no emulation, unlike bench/cpu/torch_all_in_one.py on gloo. Tensors live on the rank's GPU;
results are copied back to print and check them, as a learner's print() does.

NCCL_NVLS_ENABLE defaults to 0 here (as in run.sh).
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout by the import below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_common import AllInOne, Report, all_in_one_args, free_port, require_gpus  # noqa: E402  (bench/torch_common.py)


def worker(rank, world, port, quiet):
    dev = torch.device("cuda", rank)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    try:
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    except TypeError:  # torch < 2.3: no device_id
        dist.init_process_group("nccl", rank=rank, world_size=world)
    AllInOne(rank, world, Report(rank, quiet), device=dev).run(f"RESULT all_in_one ranks={world} backend=nccl")


def main():
    a = all_in_one_args(__doc__)
    require_gpus(a.ranks)
    mp.spawn(worker, args=(a.ranks, free_port(), a.quiet), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()
