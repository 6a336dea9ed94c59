#include "gpu/graph_loop.h"

#include "common/errors.h"
#include "gpu/gpu_errors.h"

namespace clab::gpu {

GraphLoop::~GraphLoop() {
  if (exec_) rt_.cudaGraphExecDestroy(exec_);
  if (graph_) rt_.cudaGraphDestroy(graph_);
}

void GraphLoop::abandon_capture() noexcept {
  cudaGraph_t partial = nullptr;
  if (rt_.cudaStreamEndCapture(stream_, &partial) == cudaSuccess && partial) rt_.cudaGraphDestroy(partial);
  rt_.cudaGetLastError();  // the failed capture's error is the one thrown, not a later call's
}

void GraphLoop::capture(int repeat, const std::function<void()>& enqueue_one, cudaEvent_t begin, cudaEvent_t end) {
  if (exec_) throw ClabError(ErrCode::InvalidArgument, "rank " + std::to_string(rank_) + ": the loop's graph was captured already");
  cuda_check(rt_, rt_.cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", rank_);
  try {
    if (begin) cuda_check(rt_, rt_.cudaEventRecordWithFlags(begin, stream_, kCudaEventRecordExternal), "cudaEventRecordWithFlags", rank_);
    for (int i = 0; i < repeat; i++) enqueue_one();
    if (end) cuda_check(rt_, rt_.cudaEventRecordWithFlags(end, stream_, kCudaEventRecordExternal), "cudaEventRecordWithFlags", rank_);
  } catch (...) {
    abandon_capture();
    throw;
  }
  // An op that broke the capture (a call the capture does not allow) makes EndCapture fail here.
  cuda_check(rt_, rt_.cudaStreamEndCapture(stream_, &graph_), "cudaStreamEndCapture", rank_);
  cuda_check(rt_, rt_.cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate", rank_);
}

void GraphLoop::launch() {
  if (!exec_) throw ClabError(ErrCode::InvalidArgument, "rank " + std::to_string(rank_) + ": no graph captured to launch");
  cuda_check(rt_, rt_.cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch", rank_);
}

}  // namespace clab::gpu
