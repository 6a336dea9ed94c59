// From op to library call: one case per operation (the nccl-tests habit of one table per
// collective). Buffers are device pointers from NcclComm::stage; an unused one is null.
#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "gpu/profiler_reader.h"
#include "nccl/nccl_comm.h"
#include "nccl/nccl_tag.h"

namespace clab {

namespace {

gpu::ncclDataType_t nccl_type(Dtype d) {
  switch (d) {
    case Dtype::Float32: return gpu::ncclFloat32;
    case Dtype::Float64: return gpu::ncclFloat64;
    case Dtype::Float16: return gpu::ncclFloat16;
    case Dtype::BFloat16: return gpu::ncclBfloat16;
    case Dtype::Float8E4m3: return gpu::ncclFloat8e4m3;
    case Dtype::Float8E5m2: return gpu::ncclFloat8e5m2;
    case Dtype::Int8: return gpu::ncclInt8;
    case Dtype::Uint8: return gpu::ncclUint8;
    case Dtype::Int32: return gpu::ncclInt32;
    case Dtype::Uint32: return gpu::ncclUint32;
    case Dtype::Int64: return gpu::ncclInt64;
    case Dtype::Uint64: return gpu::ncclUint64;
  }
  return gpu::ncclFloat32;
}

gpu::ncclRedOp_t nccl_op(Redop r) {
  switch (r) {
    case Redop::Sum: return gpu::ncclSum;
    case Redop::Prod: return gpu::ncclProd;
    case Redop::Min: return gpu::ncclMin;
    case Redop::Max: return gpu::ncclMax;
    case Redop::Avg: return gpu::ncclAvg;
  }
  return gpu::ncclSum;
}

}  // namespace

void NcclComm::nccl(gpu::ncclResult_t r, const char* call) const { nccl_check(*nccl_, r, call, rank_, comm_); }

// A buffer NCCL ignores on this rank (broadcast's and scatter's send off the root, reduce's and
// gather's receive) goes as the rank's other buffer rather than null: with registered buffers
// (registerBuffers) NCCL takes a null one for an unregistered buffer, and a rank that passes one
// while its peers pass registered buffers hangs the collective (broadcast did, on 2 × H100).
namespace {
uint8_t* or_other(uint8_t* ignored, uint8_t* other) { return ignored ? ignored : other; }
}  // namespace

int NcclComm::seq_slot(OpKind kind) {
  switch (kind) {
    case OpKind::AllReduce:
    case OpKind::Barrier: return 0;
    case OpKind::Broadcast: return 1;
    case OpKind::Reduce: return 2;
    case OpKind::AllGather: return 3;
    case OpKind::ReduceScatter: return 4;
    default: return -1;
  }
}

namespace {
thread_local uint64_t t_call_tag = 0;  // NcclComm::CallTag
}  // namespace

NcclComm::CallTag::CallTag(uint64_t tag) : previous_(t_call_tag) { t_call_tag = tag; }
NcclComm::CallTag::~CallTag() { t_call_tag = previous_; }

uint64_t NcclComm::next_p2p(bool send, int peer) {
  std::atomic<uint64_t>* n = p2p_counter(send, peer);
  if (!n) return 0;
  // A call issued while the profiler is paused makes no event, so the profiler's count (the pool's)
  // does not see it either.
  if (unprofiled_.load() > 0) return n->load();
  return n->fetch_add(1);
}

uint64_t NcclComm::peek_p2p(bool send, int peer) {
  const std::atomic<uint64_t>* n = p2p_counter(send, peer);
  return n ? n->load() : 0;
}

void NcclComm::issue(const Op& op, const Staged& b, gpu::cudaStream_t s) {
  const gpu::ncclDataType_t t = nccl_type(op.dtype);
  // NCCL numbers calls per communicator: the profiler's join follows the run's (op.comm 0) only.
  const bool counted = op.comm == 0;
  if (const int slot = seq_slot(op.kind); counted && slot >= 0) seq_[slot]++;
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  // A step's collective carries the step's tag to NCCL's profiler through its nccl*Config entry
  // point (NCCL 2.31), so that its events name the step (profiler v7's userTag). Only while the lab's
  // plug-in is loaded and not paused: nothing else reads the tag, and an NCCL with these entry
  // points takes the plug-in's v7, the newest it knows; the timed loop (issued paused) and runs that
  // do not look inside NCCL make the plain calls of before, which their figures were measured with.
  // The lab's line-ups (align()) and barriers are no step's calls and go untagged. Send and recv
  // have no such entry point.
  if (t_call_tag != 0 && op.kind != OpKind::Barrier && unprofiled_.load() == 0 && gpu::ProfilerReader::active()) {
    const bool send_ignored = op.kind == OpKind::Broadcast || op.kind == OpKind::Scatter;
    const bool recv_ignored = op.kind == OpKind::Reduce || op.kind == OpKind::Gather;
    const NcclCall call{op.kind,
                        send_ignored ? or_other(b.send, b.recv) : b.send,
                        recv_ignored ? or_other(b.recv, b.send) : b.recv,
                        op.count,
                        t,
                        nccl_op(op.redop),
                        op.root,
                        c,
                        s};
    gpu::ncclResult_t r = gpu::ncclSuccess;
    if (const char* name = call_with_config(n, call, coll_config(t_call_tag), &r)) return nccl(r, name);
  }
  switch (op.kind) {
    case OpKind::AllReduce: return nccl(n.ncclAllReduce(b.send, b.recv, op.count, t, nccl_op(op.redop), c, s), "ncclAllReduce");
    case OpKind::Broadcast: return nccl(n.ncclBroadcast(or_other(b.send, b.recv), b.recv, op.count, t, op.root, c, s), "ncclBroadcast");
    case OpKind::Reduce:
      return nccl(n.ncclReduce(b.send, or_other(b.recv, b.send), op.count, t, nccl_op(op.redop), op.root, c, s), "ncclReduce");
    case OpKind::AllGather: return nccl(n.ncclAllGather(b.send, b.recv, op.count, t, c, s), "ncclAllGather");
    case OpKind::ReduceScatter: return nccl(n.ncclReduceScatter(b.send, b.recv, op.count, t, nccl_op(op.redop), c, s), "ncclReduceScatter");
    case OpKind::AllToAll: return issue_all_to_all(op, b, s);
    case OpKind::Gather: return issue_gather(op, b, s);
    case OpKind::Scatter: return issue_scatter(op, b, s);
    case OpKind::Send:
      if (counted) next_p2p(true, op.peer);
      return nccl(n.ncclSend(b.send, op.count, t, op.peer, c, s), "ncclSend");
    case OpKind::Recv:
      if (counted) next_p2p(false, op.peer);
      return nccl(n.ncclRecv(b.recv, op.count, t, op.peer, c, s), "ncclRecv");
    case OpKind::Barrier:  // NCCL has none: a one-element all_reduce, as torch does it
      return nccl(n.ncclAllReduce(b.send, b.recv, 1, gpu::ncclFloat32, gpu::ncclSum, c, s), "ncclAllReduce (barrier)");
    case OpKind::Group:
      nccl(n.ncclGroupStart(), "ncclGroupStart");
      for (size_t i = 0; i < op.ops.size(); i++) issue(op.ops[i], b.children[i], s);
      return nccl(n.ncclGroupEnd(), "ncclGroupEnd");
    case OpKind::Gemm: throw_invalid(op.path + ": gemm is not a communication op");
  }
}

// NCCL 2.28 has ncclAlltoAll, ncclGather and ncclScatter; older ones get what torch does for
// them: one send and/or recv per peer inside a group.
void NcclComm::issue_all_to_all(const Op& op, const Staged& b, gpu::cudaStream_t s) {
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  const gpu::ncclDataType_t t = nccl_type(op.dtype);
  if (n.ncclAlltoAll) return nccl(n.ncclAlltoAll(b.send, b.recv, op.count, t, c, s), "ncclAlltoAll");
  const uint64_t chunk = op.count * dtype_size(op.dtype);
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < world_; r++) {
    nccl(n.ncclSend(b.send + r * chunk, op.count, t, r, c, s), "ncclSend (all_to_all)");
    nccl(n.ncclRecv(b.recv + r * chunk, op.count, t, r, c, s), "ncclRecv (all_to_all)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
}

void NcclComm::issue_gather(const Op& op, const Staged& b, gpu::cudaStream_t s) {
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  const gpu::ncclDataType_t t = nccl_type(op.dtype);
  if (n.ncclGather) return nccl(n.ncclGather(b.send, or_other(b.recv, b.send), op.count, t, op.root, c, s), "ncclGather");
  const uint64_t chunk = op.count * dtype_size(op.dtype);
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  if (rank_ == op.root) {
    for (int r = 0; r < world_; r++) {
      if (r != rank_) nccl(n.ncclRecv(b.recv + r * chunk, op.count, t, r, c, s), "ncclRecv (gather)");
      else if (b.send != b.recv + r * chunk)
        cuda_check(*rt_, rt_->cudaMemcpyAsync(b.recv + r * chunk, b.send, chunk, gpu::cudaMemcpyDeviceToDevice, s),
                   "cudaMemcpyAsync (gather)", rank_);
    }
  } else {
    nccl(n.ncclSend(b.send, op.count, t, op.root, c, s), "ncclSend (gather)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
}

void NcclComm::issue_scatter(const Op& op, const Staged& b, gpu::cudaStream_t s) {
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  const gpu::ncclDataType_t t = nccl_type(op.dtype);
  if (n.ncclScatter) return nccl(n.ncclScatter(or_other(b.send, b.recv), b.recv, op.count, t, op.root, c, s), "ncclScatter");
  const uint64_t chunk = op.count * dtype_size(op.dtype);
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  if (rank_ == op.root) {
    for (int r = 0; r < world_; r++) {
      if (r != rank_) nccl(n.ncclSend(b.send + r * chunk, op.count, t, r, c, s), "ncclSend (scatter)");
      else if (b.recv != b.send + r * chunk)
        cuda_check(*rt_, rt_->cudaMemcpyAsync(b.recv, b.send + r * chunk, chunk, gpu::cudaMemcpyDeviceToDevice, s),
                   "cudaMemcpyAsync (scatter)", rank_);
    }
  } else {
    nccl(n.ncclRecv(b.recv, op.count, t, op.root, c, s), "ncclRecv (scatter)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
}

namespace {

/** Adds the p2p peers of `op` to `peers`; returns true if a collective takes part. */
bool collect_peers(const Op& op, std::vector<bool>& peers) {
  if (op.kind == OpKind::Group) {
    bool collective = false;
    for (const Op& child : op.ops) collective = collect_peers(child, peers) || collective;
    return collective;
  }
  if (op_is_p2p(op.kind)) {
    if (op.peer >= 0 && static_cast<size_t>(op.peer) < peers.size()) peers[op.peer] = true;
    return false;
  }
  return op.kind != OpKind::Gemm;
}

}  // namespace

void NcclComm::align(const Op& op, gpu::cudaStream_t s) {
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  std::vector<bool> peers(world_, false);
  uint8_t* base = scratch_.get();
  if (collect_peers(op, peers)) {
    if (op.comm == 0) seq_[seq_slot(OpKind::AllReduce)]++;
    nccl(n.ncclAllReduce(base, base, 1, gpu::ncclFloat32, gpu::ncclSum, c, s), "ncclAllReduce (lining the ranks up)");
    return;
  }
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  for (int p = 0; p < world_; p++) {
    if (!peers[p] || p == rank_) continue;
    const uint64_t slot = kAlignRecv + static_cast<uint64_t>(p) % (kScratchBytes - kAlignRecv);
    if (op.comm == 0) next_p2p(true, p);
    nccl(n.ncclSend(base + kAlignSend, 1, gpu::ncclUint8, p, c, s), "ncclSend (lining the ranks up)");
    if (op.comm == 0) next_p2p(false, p);
    nccl(n.ncclRecv(base + slot, 1, gpu::ncclUint8, p, c, s), "ncclRecv (lining the ranks up)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
}

}  // namespace clab
