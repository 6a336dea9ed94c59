// A loop of ops captured once in a CUDA graph and replayed (nccl-tests' -G): the host issues one
// cudaGraphLaunch for the whole loop instead of one call per op, so a replay's time is the GPU's
// own, without the host's cost of launching each op. No Node-API here.
#pragma once

#include <functional>

#include "gpu/gpu_loader.h"

namespace clab::gpu {

class GraphLoop {
 public:
  GraphLoop(const CudaRuntime& rt, cudaStream_t stream, int rank) : rt_(rt), stream_(stream), rank_(rank) {}
  /** Destroys the executable graph and the graph; a replay still running completes (CUDA frees it then). */
  ~GraphLoop();
  GraphLoop(const GraphLoop&) = delete;
  GraphLoop& operator=(const GraphLoop&) = delete;

  /**
   * Captures `repeat` calls of `enqueue_one` on the stream (recorded into a graph, not run) and
   * instantiates the graph. Thread-local capture mode: only this thread's calls are held to the
   * capture's rules, so the other stream threads, and NCCL's first connection of a peer (which may
   * allocate), go on as they would. Where `enqueue_one` or the capture fails, the capture is ended
   * and its graph dropped, the stream is usable again, and the error is thrown (ClabError).
   * With `begin` and `end`, the graph records them itself (event nodes, cudaEventRecordExternal)
   * before its first op and after its last: a replay is then timed from its first op on the GPU,
   * without the host's cudaGraphLaunch between the stream and the graph's work.
   */
  void capture(int repeat, const std::function<void()>& enqueue_one, cudaEvent_t begin = nullptr, cudaEvent_t end = nullptr);
  /** Enqueues one replay of the captured ops on the stream. */
  void launch();

 private:
  /** Ends a capture that failed, leaving the stream out of capture mode; throws nothing. */
  void abandon_capture() noexcept;

  const CudaRuntime& rt_;
  cudaStream_t stream_;
  int rank_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace clab::gpu
