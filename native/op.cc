#include "op.h"

#include "errors.h"
#include "gemm.h"

namespace clab {

namespace {
constexpr const char* kKindNames[] = {"all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter",
                                      "all_to_all", "gather",    "scatter", "send",      "recv",
                                      "barrier",    "group",     "gemm"};
constexpr int kKinds = sizeof(kKindNames) / sizeof(kKindNames[0]);

std::string u64(uint64_t v) { return std::to_string(v); }

/** Throws unless `bytes` >= count × factor × element size. */
void need(const Op& op, const char* field, uint64_t bytes, uint64_t factor, int world) {
  const uint64_t e = dtype_size(op.dtype);
  const uint64_t want = op.count * factor * e;
  if (bytes >= want) return;
  std::string how = "count " + u64(op.count);
  if (factor != 1) how += " × world " + std::to_string(world);
  how += " × " + u64(e) + " bytes";
  throw_invalid(op.path + "." + field + " holds " + u64(bytes) + " bytes but " + op_kind_name(op.kind) +
                " needs " + u64(want) + " (" + how + ")");
}

bool overlap(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
  if (!a || !b || an == 0 || bn == 0) return false;
  return a < b + bn && b < a + an;
}

void check_rank_field(const Op& op, const char* field, int v, int world) {
  if (v < 0 || v >= world)
    throw_invalid(op.path + "." + field + " " + std::to_string(v) + " is out of range for world " +
                  std::to_string(world) + " (0.." + std::to_string(world - 1) + ")");
}

/** The bytes each buffer must hold on this rank: count × factor (0 = unused here). */
void required_factors(const Op& op, int rank, int world, uint64_t* send_f, uint64_t* recv_f) {
  const uint64_t w = static_cast<uint64_t>(world);
  const bool root = rank == op.root;
  *send_f = 0;
  *recv_f = 0;
  switch (op.kind) {
    case OpKind::AllReduce: *send_f = 1; *recv_f = 1; break;
    case OpKind::Broadcast: *send_f = root ? 1 : 0; *recv_f = 1; break;
    case OpKind::Reduce: *send_f = 1; *recv_f = root ? 1 : 0; break;
    case OpKind::AllGather: *send_f = 1; *recv_f = w; break;
    case OpKind::ReduceScatter: *send_f = w; *recv_f = 1; break;
    case OpKind::AllToAll: *send_f = w; *recv_f = w; break;
    case OpKind::Gather: *send_f = 1; *recv_f = root ? w : 0; break;
    case OpKind::Scatter: *send_f = root ? w : 0; *recv_f = 1; break;
    case OpKind::Send: *send_f = 1; break;
    case OpKind::Recv: *recv_f = 1; break;
    default: break;
  }
}
}  // namespace

const char* op_kind_name(OpKind k) { return kKindNames[static_cast<int>(k)]; }

bool parse_op_kind(const std::string& s, OpKind* out) {
  for (int i = 0; i < kKinds; i++)
    if (s == kKindNames[i]) { *out = static_cast<OpKind>(i); return true; }
  return false;
}

void op_buffer_bytes(const Op& op, int rank, int world, uint64_t* send_bytes, uint64_t* recv_bytes) {
  uint64_t send_f, recv_f;
  required_factors(op, rank, world, &send_f, &recv_f);
  *send_bytes = op.count * send_f * dtype_size(op.dtype);
  *recv_bytes = op.count * recv_f * dtype_size(op.dtype);
}

bool op_in_place(const Op& op, int rank, int world) {
  if (!op.send || !op.recv) return false;
  const uint64_t slice = op.count * dtype_size(op.dtype) * static_cast<uint64_t>(rank);
  switch (op.kind) {
    case OpKind::AllGather:
    case OpKind::Gather: return op.send == op.recv + slice;
    case OpKind::ReduceScatter:
    case OpKind::Scatter: return op.recv == op.send + slice;
    default: return op.send == op.recv;
  }
}

void validate_op(const Op& op, int rank, int world) {
  if (op.kind == OpKind::Group) {
    for (const Op& child : op.ops) {
      if (child.kind == OpKind::Gemm) throw_invalid(child.path + ": gemm cannot be part of a group");
      validate_op(child, rank, world);
    }
    return;
  }
  if (op.kind == OpKind::Barrier) return;
  if (op.kind == OpKind::Gemm) {
    validate_gemm(op.path, op.dtype, op.m, op.n, op.k);
    return;
  }
  if (op_has_root(op.kind)) check_rank_field(op, "root", op.root, world);
  if (op_has_peer(op.kind)) check_rank_field(op, "peer", op.peer, world);
  uint64_t send_f, recv_f;
  required_factors(op, rank, world, &send_f, &recv_f);
  if (send_f) need(op, "send", op.send_bytes, send_f, world);
  if (recv_f) need(op, "recv", op.recv_bytes, recv_f, world);
  if (send_f && recv_f && overlap(op.send, op.count * send_f * dtype_size(op.dtype), op.recv,
                                  op.count * recv_f * dtype_size(op.dtype))) {
    if (!op_in_place(op, rank, world)) {
      const char* layout = "send and recv must be the same view";
      if (op.kind == OpKind::AllGather || op.kind == OpKind::Gather) layout = "send must be this rank's slice of recv";
      if (op.kind == OpKind::ReduceScatter || op.kind == OpKind::Scatter) layout = "recv must be this rank's slice of send";
      throw_invalid(op.path + ".send and " + op.path + ".recv overlap but not in the in-place layout of " +
                    op_kind_name(op.kind) + " (" + layout + ")");
    }
  }
}

}  // namespace clab
