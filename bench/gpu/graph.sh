#!/usr/bin/env bash
# clab's graph-launched time per op beside nccl-tests' own CUDA graphs (-G), below 1 MiB: sweep.sh
# with GRAPH=20 (clab's sweeps "launch": "graph": each size's 20 ops captured in one graph, one replay
# timed; nccl-tests -G 20: 20 replays of its graph of 20 ops, each launch shared by 20 ops on both
# sides), all_reduce 8 B … 512 KiB, nccl-tests twice each repeat (PEER_AA=1, its A/A pair), REPEATS=7
# (6 or more give the paired median its 95 % interval). The table's last lines: "paired clab /
# nccl-tests" and, beside it, "paired nccl-tests (A/A) / nccl-tests".
#
# NCCL_TESTS_BUILD=DIR (required): the folder of nccl-tests' binaries (see common.sh). Every knob of
# sweep.sh applies (OPS="all_reduce sendrecv", ITERS, MAX_BYTES, REPEATS, …); the overlap runs are off.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GRAPH=${GRAPH:-20} MAX_BYTES=${MAX_BYTES:-524288} OPS=${OPS:-all_reduce} PEER_AA=${PEER_AA:-1} REPEATS=${REPEATS:-7} OVERLAP_RUNS=0 \
  exec bash "$here/sweep.sh"
