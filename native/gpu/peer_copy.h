// A plain copy from this rank's device to a peer's, timed per repetition: what nvbandwidth calls a
// copy-engine (CE) copy, cudaMemcpyPeerAsync, measured beside NCCL's send/recv so that a learner
// sees what the link gives without NCCL. The cpu backend copies between two host buffers with
// memcpy (its ranks' links are host memory). Runs on its own stream and memory, outside any
// communicator. No Node-API here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clab {

struct PeerCopyResult {
  std::vector<uint64_t> start_ns, end_ns;  // each timed repetition, CLOCK_MONOTONIC
  uint64_t checked = 0, wrong = 0;         // bytes of the destination read back and compared
  std::string how;                         // "cudaMemcpyPeerAsync, peer access on" / "memcpy"
};

/** `rank` names errors. gpu: copies `bytes` from `device` to `peer` (CUDA indices). */
PeerCopyResult peer_copy_gpu(int device, int peer, size_t bytes, int warmup, int iters, int rank);
PeerCopyResult peer_copy_cpu(size_t bytes, int warmup, int iters);

}  // namespace clab
