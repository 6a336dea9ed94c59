// One operation as the backend executes it (the C++ form of NativeOp in src/worker/native-api.ts)
// and its validation against this rank's view of the communicator. No Node-API here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dtype.h"

namespace clab {

enum class OpKind : uint8_t {
  AllReduce, Broadcast, Reduce, AllGather, ReduceScatter, AllToAll, Gather, Scatter,
  Send, Recv, Barrier, Group, Gemm,
};

const char* op_kind_name(OpKind k);
bool parse_op_kind(const std::string& s, OpKind* out);
constexpr const char* kOpKindList =
    "all_reduce, broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter, send, recv, "
    "barrier, group, gemm";

/** Which fields an op kind reads. */
inline bool op_has_redop(OpKind k) { return k == OpKind::AllReduce || k == OpKind::Reduce || k == OpKind::ReduceScatter; }
inline bool op_has_root(OpKind k) {
  return k == OpKind::Broadcast || k == OpKind::Reduce || k == OpKind::Gather || k == OpKind::Scatter;
}
inline bool op_has_peer(OpKind k) { return k == OpKind::Send || k == OpKind::Recv; }
inline bool op_is_p2p(OpKind k) { return op_has_peer(k); }
inline bool op_has_dtype(OpKind k) { return k != OpKind::Barrier && k != OpKind::Group; }
inline bool op_has_count(OpKind k) { return op_has_dtype(k) && k != OpKind::Gemm; }
inline bool op_has_send(OpKind k) { return op_has_count(k) && k != OpKind::Recv; }
inline bool op_has_recv(OpKind k) { return op_has_count(k) && k != OpKind::Send; }

struct Op {
  OpKind kind = OpKind::Barrier;
  Dtype dtype = Dtype::Float32;
  Redop redop = Redop::Sum;
  int root = 0;
  int peer = 0;
  uint64_t count = 0;
  uint8_t* send = nullptr;
  uint64_t send_bytes = 0;
  uint8_t* recv = nullptr;
  uint64_t recv_bytes = 0;
  uint64_t m = 0, n = 0, k = 0;  // gemm
  std::vector<Op> ops;           // group members (flattened: no nested groups)
  std::string path = "op";       // "op" or "op.ops[3]", for messages
};

/**
 * Checks ranges, buffer sizes and aliasing for `rank` of `world`; throws CLAB_INVALID_ARGUMENT
 * with a message naming the field, e.g. "op.recv holds 8 bytes but all_gather needs 24
 * (count 3 × world 2 × 4 bytes)".
 */
void validate_op(const Op& op, int rank, int world);

/** In-place layouts (native-api.ts): true when the op's buffers alias that way. */
bool op_in_place(const Op& op, int rank, int world);

/** The bytes of send and recv that the op reads or writes on `rank` (0: the buffer is unused there). */
void op_buffer_bytes(const Op& op, int rank, int world, uint64_t* send_bytes, uint64_t* recv_bytes);

}  // namespace clab
