// One operation as the backend executes it (the C++ form of NativeOp in src/addon/native-api.ts)
// and its validation against this rank's view of the communicator. No Node-API here.
//
// Every native op is one row of CLAB_NATIVE_OPS: its enum value, name, the fields it reads, its
// buffer sizes and its in-place layout all come from that row. Besides the row, an op needs one
// case in each backend's switch (nccl_ops.cc, cpu_collectives.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/op_data.h"

namespace clab {

/** What kind of work an op is (how the backends schedule it). */
enum class OpClass : uint8_t { Collective, P2p, Barrier, Group, Compute };
/** A buffer's size on one rank, in units of `count` elements (World: count × world). */
enum class Size : uint8_t { None, One, World };
/** How send and recv may alias (NativeOp in native-api.ts). */
enum class InPlace : uint8_t {
  None,        // never
  Same,        // send and recv are one buffer
  SendInRecv,  // send is this rank's slice of recv
  RecvInSend,  // recv is this rank's slice of send
};
/** The fields of the JS op object an op reads (besides op, send and recv, which Size says). */
enum OpField : uint8_t { kDtype = 1, kCount = 2, kRedop = 4, kRoot = 8, kPeer = 16, kGemmDims = 32, kOps = 64 };

// X(Kind, name, class, fields, send on the root, send elsewhere, recv on the root, recv elsewhere, in-place)
// Ops without a root have the same sizes in both columns.
#define CLAB_NATIVE_OPS(X)                                                                                     \
  X(AllReduce, "all_reduce", Collective, kDtype | kCount | kRedop, One, One, One, One, Same)                   \
  X(Broadcast, "broadcast", Collective, kDtype | kCount | kRoot, One, None, One, One, Same)                    \
  X(Reduce, "reduce", Collective, kDtype | kCount | kRedop | kRoot, One, One, One, None, Same)                 \
  X(AllGather, "all_gather", Collective, kDtype | kCount, One, One, World, World, SendInRecv)                  \
  X(ReduceScatter, "reduce_scatter", Collective, kDtype | kCount | kRedop, World, World, One, One, RecvInSend) \
  X(AllToAll, "all_to_all", Collective, kDtype | kCount, World, World, World, World, Same)                     \
  X(Gather, "gather", Collective, kDtype | kCount | kRoot, One, One, World, None, SendInRecv)                  \
  X(Scatter, "scatter", Collective, kDtype | kCount | kRoot, World, None, One, One, RecvInSend)                \
  X(Send, "send", P2p, kDtype | kCount | kPeer, One, One, None, None, None)                                    \
  X(Recv, "recv", P2p, kDtype | kCount | kPeer, None, None, One, One, None)                                    \
  X(Barrier, "barrier", Barrier, 0, None, None, None, None, None)                                              \
  X(Group, "group", Group, kOps, None, None, None, None, None)                                                 \
  X(Gemm, "gemm", Compute, kDtype | kGemmDims, None, None, None, None, None)

enum class OpKind : uint8_t {
#define CLAB_OP_ENUM(kind, ...) kind,
  CLAB_NATIVE_OPS(CLAB_OP_ENUM)
#undef CLAB_OP_ENUM
};

struct OpTraits {
  const char* name;
  OpClass cls;
  uint8_t fields;
  Size send_root, send_other, recv_root, recv_other;
  InPlace in_place;
};

inline constexpr OpTraits kOpTraits[] = {
#define CLAB_OP_ROW(kind, name, cls, fields, sr, so, rr, ro, ip) \
  {name, OpClass::cls, static_cast<uint8_t>(fields), Size::sr, Size::so, Size::rr, Size::ro, InPlace::ip},
    CLAB_NATIVE_OPS(CLAB_OP_ROW)
#undef CLAB_OP_ROW
};

constexpr const OpTraits& op_traits(OpKind k) { return kOpTraits[static_cast<int>(k)]; }
constexpr const char* op_kind_name(OpKind k) { return op_traits(k).name; }
bool parse_op_kind(const std::string& s, OpKind* out);
/** "all_reduce, broadcast, …", for messages. */
std::string op_kind_list();

constexpr bool op_reads(OpKind k, OpField f) { return (op_traits(k).fields & f) != 0; }
constexpr bool op_has_redop(OpKind k) { return op_reads(k, kRedop); }
constexpr bool op_has_root(OpKind k) { return op_reads(k, kRoot); }
constexpr bool op_has_peer(OpKind k) { return op_reads(k, kPeer); }
constexpr bool op_has_dtype(OpKind k) { return op_reads(k, kDtype); }
constexpr bool op_has_count(OpKind k) { return op_reads(k, kCount); }
constexpr bool op_is_p2p(OpKind k) { return op_traits(k).cls == OpClass::P2p; }
constexpr bool op_has_send(OpKind k) { return op_traits(k).send_root != Size::None || op_traits(k).send_other != Size::None; }
constexpr bool op_has_recv(OpKind k) { return op_traits(k).recv_root != Size::None || op_traits(k).recv_other != Size::None; }

/** How a send/recv moves its data: NCCL's kernels, or a copy engine (cudaMemcpyPeerAsync; cpu: a plain copy). */
enum class Transport : uint8_t { Nccl, CopyEngine };

struct Op {
  OpKind kind = OpKind::Barrier;
  Transport transport = Transport::Nccl;  // send/recv only
  int comm = 0;                           // nccl: 0 the run's communicator, i the i-th split with settings of its own
  bool window = false;                    // nccl: buffers from ncclMemAlloc, registered on `comm` as symmetric windows
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
  int sm_count = 0;              // gemm: the SMs cuBLAS targets (cublasSetSmCountTarget); 0: all
  std::vector<Op> ops;           // group members (flattened: no nested groups)
  /** Set: the backend fills send and checks recv itself (op_data.h): nccl on the GPU, cpu in the host buffers. */
  std::shared_ptr<const OpData> data;
  std::string path = "op";  // "op" or "op.ops[3]", for messages
};

/** Whether `op` (or a member of its group) is a send/recv by copy engine. */
inline bool op_has_copy_engine(const Op& op) {
  if (op.kind == OpKind::Group) {
    for (const Op& c : op.ops)
      if (op_has_copy_engine(c)) return true;
    return false;
  }
  return op_is_p2p(op.kind) && op.transport == Transport::CopyEngine;
}

/**
 * Checks ranges, buffer sizes and aliasing for `rank` of `world`; throws CLAB_INVALID_ARGUMENT
 * with a message naming the field, e.g. "op.recv holds 8 bytes but all_gather needs 24
 * (count 3 × world 2 × 4 bytes)".
 */
void validate_op(const Op& op, int rank, int world);

/** True when the op's buffers alias in its row's in-place layout on `rank`. */
bool op_in_place(const Op& op, int rank, int world);

/** The bytes of send and recv that the op reads or writes on `rank` (0: the buffer is unused there). */
void op_buffer_bytes(const Op& op, int rank, int world, uint64_t* send_bytes, uint64_t* recv_bytes);

}  // namespace clab
