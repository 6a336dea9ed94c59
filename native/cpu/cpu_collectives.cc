// Collectives over the shared slots.
//
// Every collective cuts its data into K chunks and runs K+1 phases (K+2 for reductions) with a
// barrier between phases. Phase j stores chunk j into the slots of parity p+j and, in the same
// phase, consumes chunk j-1 (parity p+j-1) that the previous phase published: one barrier per
// chunk, and a rank always reads whole chunks that no one writes until two barriers later.
// In-place aliases are safe because a phase only ever writes output of chunks whose input was
// stored in an earlier phase.
//
// Across operations: phase 0 writes only parity p (the op's base parity) and the last phase (after
// the last barrier) reads only parity p+K-1; the next op starts at p+K. So a fast rank that has
// moved on never overwrites what a slow rank still reads — no trailing barrier needed.
//
// Reductions (all_reduce, reduce): rank r folds its 1/world share of every chunk over all slots
// in rank order into the result area, and each rank copies the result out one phase later.
#include <algorithm>
#include <cstring>

#include "common/errors.h"
#include "cpu/cpu_comm.h"
#include "cpu/memcopy.h"

namespace clab {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/** Elements [lo, hi) of an n-element chunk that `rank` of `world` folds (cache-line multiples). */
void share(uint64_t n, uint64_t esize, int rank, int world, uint64_t* lo, uint64_t* hi) {
  const uint64_t unit = std::max<uint64_t>(1, 64 / esize);
  const uint64_t units = ceil_div(n, unit);
  *lo = std::min(n, units * rank / world * unit);
  *hi = std::min(n, units * (rank + 1) / world * unit);
}

std::string describe(const OpSig& s) {
  std::string out = op_kind_name(static_cast<OpKind>(s.kind));
  const OpKind k = static_cast<OpKind>(s.kind);
  if (k == OpKind::Barrier) return out;
  out += std::string("(") + dtype_name(static_cast<Dtype>(s.dtype));
  if (op_has_redop(k)) out += std::string(", ") + redop_name(static_cast<Redop>(s.redop));
  if (op_has_root(k)) out += ", root " + std::to_string(s.root);
  return out + ", count " + std::to_string(s.count) + ")";
}

}  // namespace

void CpuComm::coll_begin(const Op& op) {
  OpSig& s = seg_->rank_info(static_cast<uint32_t>(rank_))->sig[parity_ & 1];
  s.kind = static_cast<uint32_t>(op.kind);
  s.dtype = op.kind == OpKind::Barrier ? 0 : static_cast<uint32_t>(op.dtype);
  s.redop = op_has_redop(op.kind) ? static_cast<uint32_t>(op.redop) : 0;
  s.root = op_has_root(op.kind) ? op.root : 0;
  s.count = op.count;
  s.seq = ++coll_seq_;
}

std::string CpuComm::signature_mismatch() const {
  const OpSig& a = seg_->rank_info(0)->sig[parity_ & 1];
  for (int q = 1; q < world_; q++) {
    const OpSig& b = seg_->rank_info(static_cast<uint32_t>(q))->sig[parity_ & 1];
    if (a.kind == b.kind && a.dtype == b.dtype && a.redop == b.redop && a.root == b.root && a.count == b.count && a.seq == b.seq) continue;
    return "collective mismatch: rank 0 called " + describe(a) + " as its collective #" + std::to_string(a.seq) + " but rank " +
           std::to_string(q) + " called " + describe(b) + " as its #" + std::to_string(b.seq);
  }
  return "";
}

void CpuComm::coll_sync(bool first) {
  barrier_wait(&seg_->hdr()->barrier, static_cast<uint32_t>(world_), [this](bool t) { on_wait(t, nullptr); });
  if (first) {
    // Every rank finds the same mismatch: each one reports it as an invalid argument. (A barrier
    // released early by an abort may see stale signatures: then the abort's own reason wins.)
    const std::string msg = signature_mismatch();
    if (!msg.empty()) {
      set_abort(rank_, msg);
      if (abort_reason_is(msg)) throw_invalid(msg);
      throw_aborted();
    }
  }
  check_abort();  // an abort releases barrier waiters early: never touch data after one
}

void CpuComm::coll_end(uint64_t chunks) { parity_ = (parity_ + static_cast<uint32_t>(chunks & 1)) & 1; }

void CpuComm::reduce_like(const Op& op, bool all) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() / e;
  const uint64_t K = ceil_div(op.count, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const bool out_here = all || rank_ == op.root;
  const void* ins[kMaxWorld];
  auto n_of = [&](uint64_t k) { return std::min(per, op.count - k * per); };
  for (uint64_t j = 0; j <= K + 1; j++) {
    if (j >= 2 && out_here) {
      const uint64_t k = j - 2;
      copy_to_output(op.recv + k * per * e, seg_->result(p + k), n_of(k) * e);
    }
    if (j >= 1 && j <= K) {
      const uint64_t k = j - 1;
      uint64_t lo, hi;
      share(n_of(k), e, rank_, world_, &lo, &hi);
      if (hi > lo) {
        for (int q = 0; q < world_; q++) ins[q] = seg_->slot(p + k, q) + lo * e;
        reduce_n(op.dtype, op.redop, seg_->result(p + k) + lo * e, ins, world_, hi - lo);
      }
    }
    if (j < K) std::memcpy(seg_->slot(p + j, rank_), op.send + j * per * e, n_of(j) * e);
    if (j <= K) coll_sync(j == 0);
  }
  coll_end(K);
}

template <>
void CpuComm::collective<OpKind::AllReduce>(const Op& op) {
  reduce_like(op, true);
}

template <>
void CpuComm::collective<OpKind::Reduce>(const Op& op) {
  reduce_like(op, false);
}

// The root streams chunks of world × slot bytes through all slots of a parity.
template <>
void CpuComm::collective<OpKind::Broadcast>(const Op& op) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() * world_ / e;
  const uint64_t K = ceil_div(op.count, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const bool root = rank_ == op.root, in_place = op.send == op.recv;
  auto n_of = [&](uint64_t k) { return std::min(per, op.count - k * per); };
  for (uint64_t j = 0; j <= K; j++) {
    if (j >= 1 && !root) std::memcpy(op.recv + (j - 1) * per * e, seg_->slot(p + j - 1, 0), n_of(j - 1) * e);
    if (j < K && root) {
      std::memcpy(seg_->slot(p + j, 0), op.send + j * per * e, n_of(j) * e);
      if (!in_place) std::memcpy(op.recv + j * per * e, op.send + j * per * e, n_of(j) * e);
    }
    if (j < K) coll_sync(j == 0);
  }
  coll_end(K);
}

void CpuComm::gather_like(const Op& op, bool all) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() / e, c = op.count;
  const uint64_t K = ceil_div(c, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const bool out_here = all || rank_ == op.root;
  const bool in_place = out_here && op_in_place(op, rank_, world_);
  auto n_of = [&](uint64_t k) { return std::min(per, c - k * per); };
  for (uint64_t j = 0; j <= K; j++) {
    if (j >= 1 && out_here) {
      const uint64_t k = j - 1;
      for (int q = 0; q < world_; q++)
        if (q != rank_) std::memcpy(op.recv + (q * c + k * per) * e, seg_->slot(p + k, q), n_of(k) * e);
    }
    if (j < K) {
      const uint8_t* src = op.send + j * per * e;
      if (all || !out_here) std::memcpy(seg_->slot(p + j, rank_), src, n_of(j) * e);
      if (out_here && !in_place) std::memcpy(op.recv + (rank_ * c + j * per) * e, src, n_of(j) * e);
    }
    if (j < K) coll_sync(j == 0);
  }
  coll_end(K);
}

template <>
void CpuComm::collective<OpKind::AllGather>(const Op& op) {
  gather_like(op, true);
}

template <>
void CpuComm::collective<OpKind::Gather>(const Op& op) {
  gather_like(op, false);
}

template <>
void CpuComm::collective<OpKind::Scatter>(const Op& op) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() / e, c = op.count;
  const uint64_t K = ceil_div(c, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const bool root = rank_ == op.root;
  const bool in_place = root && op_in_place(op, rank_, world_);
  auto n_of = [&](uint64_t k) { return std::min(per, c - k * per); };
  for (uint64_t j = 0; j <= K; j++) {
    if (j >= 1 && !root) std::memcpy(op.recv + (j - 1) * per * e, seg_->slot(p + j - 1, rank_), n_of(j - 1) * e);
    if (j < K && root) {
      for (int q = 0; q < world_; q++)
        if (q != rank_) std::memcpy(seg_->slot(p + j, q), op.send + (q * c + j * per) * e, n_of(j) * e);
      if (!in_place) std::memcpy(op.recv + j * per * e, op.send + (rank_ * c + j * per) * e, n_of(j) * e);
    }
    if (j < K) coll_sync(j == 0);
  }
  coll_end(K);
}

// Each rank stores its whole send chunk (one piece per destination); rank r folds piece r of
// every slot straight into its own recv.
template <>
void CpuComm::collective<OpKind::ReduceScatter>(const Op& op) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() / (world_ * e), c = op.count;
  const uint64_t K = ceil_div(c, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const void* ins[kMaxWorld];
  auto n_of = [&](uint64_t k) { return std::min(per, c - k * per); };
  for (uint64_t j = 0; j <= K; j++) {
    if (j >= 1) {
      const uint64_t k = j - 1;
      for (int q = 0; q < world_; q++) ins[q] = seg_->slot(p + k, q) + rank_ * per * e;
      reduce_n(op.dtype, op.redop, op.recv + k * per * e, ins, world_, n_of(k));
    }
    if (j < K)
      for (int q = 0; q < world_; q++) std::memcpy(seg_->slot(p + j, rank_) + q * per * e, op.send + (q * c + j * per) * e, n_of(j) * e);
    if (j < K) coll_sync(j == 0);
  }
  coll_end(K);
}

template <>
void CpuComm::collective<OpKind::AllToAll>(const Op& op) {
  const uint64_t e = dtype_size(op.dtype), per = seg_->slot_bytes() / (world_ * e), c = op.count;
  const uint64_t K = ceil_div(c, per);
  if (K == 0) return;
  coll_begin(op);
  const uint32_t p = parity_;
  const bool in_place = op.send == op.recv;
  auto n_of = [&](uint64_t k) { return std::min(per, c - k * per); };
  for (uint64_t j = 0; j <= K; j++) {
    if (j >= 1) {
      const uint64_t k = j - 1;
      for (int q = 0; q < world_; q++)
        if (q != rank_) std::memcpy(op.recv + (q * c + k * per) * e, seg_->slot(p + k, q) + rank_ * per * e, n_of(k) * e);
    }
    if (j < K) {
      for (int q = 0; q < world_; q++)
        if (q != rank_) std::memcpy(seg_->slot(p + j, rank_) + q * per * e, op.send + (q * c + j * per) * e, n_of(j) * e);
      if (!in_place) std::memcpy(op.recv + (rank_ * c + j * per) * e, op.send + (rank_ * c + j * per) * e, n_of(j) * e);
    }
    if (j < K) coll_sync(j == 0);
  }
  coll_end(K);
}

template <>
void CpuComm::collective<OpKind::Barrier>(const Op& op) {
  coll_begin(op);
  coll_sync(true);
  coll_end(1);
}

// Collectives inside a group run first, in order; then all send/recv progress together.
void CpuComm::run_group(const Op& group) {
  std::vector<const Op*> p2p;
  for (const Op& child : group.ops) {
    if (op_is_p2p(child.kind)) p2p.push_back(&child);
    else
      run_comm(child);
  }
  if (!p2p.empty()) run_p2p(p2p);
}

// The one switch of the cpu backend: from op kind to kernel.
void CpuComm::run_comm(const Op& op) {
  switch (op.kind) {
    case OpKind::AllReduce: return collective<OpKind::AllReduce>(op);
    case OpKind::Broadcast: return collective<OpKind::Broadcast>(op);
    case OpKind::Reduce: return collective<OpKind::Reduce>(op);
    case OpKind::AllGather: return collective<OpKind::AllGather>(op);
    case OpKind::ReduceScatter: return collective<OpKind::ReduceScatter>(op);
    case OpKind::AllToAll: return collective<OpKind::AllToAll>(op);
    case OpKind::Gather: return collective<OpKind::Gather>(op);
    case OpKind::Scatter: return collective<OpKind::Scatter>(op);
    case OpKind::Barrier: return collective<OpKind::Barrier>(op);
    case OpKind::Send:
    case OpKind::Recv: return run_p2p({&op});
    case OpKind::Group: return run_group(op);
    case OpKind::Gemm: throw_invalid(op.path + ": gemm cannot run as a communication op");
  }
}

}  // namespace clab
