#!/usr/bin/env python3
"""The classic torch.distributed learning script, on gloo: the peer of

    clab run scenarios/all-in-one.scenario.json --ranks 2

It runs the same operations, in the same order, with the same inputs (see that file), prints
every result as `[Rank r] op: [values]`, and checks each against the value it must have.
Timed from outside, process start to exit (python start-up, `import torch`, spawning the
ranks, rendezvous, the operations, shutdown), as `clab run` is.

    python3 bench/cpu/torch_all_in_one.py [--ranks 2] [--quiet]

Ranks are spawned with torch.multiprocessing (as in the PyTorch tutorial) and meet over
env:// (MASTER_ADDR=127.0.0.1, a free port), gloo on the loopback interface.

What gloo in this torch (Debian's 1.13) cannot do, the script does the way a learner would
and SAYS so in its output, one line per op, e.g.
    [Rank 0] reduce_scatter: [2, 4]   (gloo: "ProcessGroupGloo does not support reduce_scatter"; emulated: all_reduce + own slice)
Each op is first tried natively; the emulation only runs when gloo raises. In torch 1.13:
  all_reduce avg          -> ReduceOp.AVG is NCCL-only: all_reduce sum, then / world
  all_gather_into_tensor  -> no _allgather_base on gloo: all_gather into views of the output
  reduce_scatter          -> unsupported: all_reduce of the concatenated list, keep own slice
  reduce_scatter_tensor   -> no _reduce_scatter_base: all_reduce of the tensor, keep own slice
  all_to_all (list)       -> unsupported: all_to_all_single on the concatenated list
  all_to_all_single       -> supported natively
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout by the import below
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_common import AllInOne, Report, all_in_one_args, free_port  # noqa: E402  (bench/torch_common.py)


def worker(rank, world, port, quiet):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    AllInOne(rank, world, Report(rank, quiet), emulates="gloo").run(f"RESULT all_in_one ranks={world}")


def main():
    a = all_in_one_args(__doc__)
    # Gloo picks its interface from the hostname unless told: stay on loopback, never a real NIC.
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(worker, args=(a.ranks, free_port(), a.quiet), nprocs=a.ranks, join=True)


if __name__ == "__main__":
    main()
