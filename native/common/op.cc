#include "common/op.h"

#include "common/errors.h"
#include "common/gemm.h"

namespace clab {

namespace {

constexpr int kKinds = sizeof(kOpTraits) / sizeof(kOpTraits[0]);

std::string u64(uint64_t v) { return std::to_string(v); }

uint64_t factor(Size s, int world) {
  switch (s) {
    case Size::None: return 0;
    case Size::One: return 1;
    case Size::World: return static_cast<uint64_t>(world);
  }
  return 0;
}

/** The elements each buffer must hold on this rank, in units of count (0 = unused here). */
void required_factors(const Op& op, int rank, int world, uint64_t* send_f, uint64_t* recv_f) {
  const OpTraits& t = op_traits(op.kind);
  const bool root = !op_has_root(op.kind) || rank == op.root;
  *send_f = factor(root ? t.send_root : t.send_other, world);
  *recv_f = factor(root ? t.recv_root : t.recv_other, world);
}

/** Throws unless `bytes` >= count × factor × element size. */
void need(const Op& op, const char* field, uint64_t bytes, uint64_t factor, int world) {
  const uint64_t e = dtype_size(op.dtype);
  const uint64_t want = op.count * factor * e;
  if (bytes >= want) return;
  std::string how = "count " + u64(op.count);
  if (factor != 1) how += " × world " + std::to_string(world);
  how += " × " + u64(e) + " bytes";
  throw_invalid(op.path + "." + field + " holds " + u64(bytes) + " bytes but " + op_kind_name(op.kind) + " needs " + u64(want) + " (" +
                how + ")");
}

bool overlap(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
  if (!a || !b || an == 0 || bn == 0) return false;
  return a < b + bn && b < a + an;
}

void check_rank_field(const Op& op, const char* field, int v, int world) {
  if (v < 0 || v >= world)
    throw_invalid(op.path + "." + field + " " + std::to_string(v) + " is out of range for world " + std::to_string(world) + " (0.." +
                  std::to_string(world - 1) + ")");
}

const char* layout_rule(InPlace layout) {
  switch (layout) {
    case InPlace::Same: return "send and recv must be the same view";
    case InPlace::SendInRecv: return "send must be this rank's slice of recv";
    case InPlace::RecvInSend: return "recv must be this rank's slice of send";
    case InPlace::None: break;
  }
  return "send and recv must not overlap";
}

}  // namespace

bool parse_op_kind(const std::string& s, OpKind* out) {
  for (int i = 0; i < kKinds; i++)
    if (s == kOpTraits[i].name) {
      *out = static_cast<OpKind>(i);
      return true;
    }
  return false;
}

std::string op_kind_list() {
  std::string list;
  for (int i = 0; i < kKinds; i++) list += (i ? ", " : "") + std::string(kOpTraits[i].name);
  return list;
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
  switch (op_traits(op.kind).in_place) {
    case InPlace::Same: return op.send == op.recv;
    case InPlace::SendInRecv: return op.send == op.recv + slice;
    case InPlace::RecvInSend: return op.recv == op.send + slice;
    case InPlace::None: break;
  }
  return false;
}

namespace {

/** An op's data program (op_data.h) fits its buffers: its dtype, a check covering recv (a fill is of send where this rank reads one). */
void validate_data(const Op& op, uint64_t recv_elements) {
  const OpData& d = *op.data;
  if (d.dtype != static_cast<uint8_t>(op.dtype) || !data::supported_dtype(d.dtype))
    throw_invalid(op.path + ".data: its program is for another dtype than the op's " + dtype_name(op.dtype));
  if (d.check && d.length() != recv_elements)
    throw_invalid(op.path + ".data.expect covers " + std::to_string(d.length()) + " elements but recv holds " +
                  std::to_string(recv_elements) + " on this rank");
}

}  // namespace

void validate_op(const Op& op, int rank, int world) {
  switch (op_traits(op.kind).cls) {
    case OpClass::Group:
      for (const Op& child : op.ops) {
        if (op_traits(child.kind).cls == OpClass::Compute)
          throw_invalid(child.path + ": " + op_kind_name(child.kind) + " cannot be part of a group");
        validate_op(child, rank, world);
      }
      return;
    case OpClass::Compute: return validate_gemm(op.path, op.dtype, op.m, op.n, op.k);
    case OpClass::Barrier: return;
    case OpClass::Collective:
    case OpClass::P2p: break;
  }
  if (op_has_root(op.kind)) check_rank_field(op, "root", op.root, world);
  if (op_has_peer(op.kind)) check_rank_field(op, "peer", op.peer, world);
  uint64_t send_f, recv_f;
  required_factors(op, rank, world, &send_f, &recv_f);
  if (send_f) need(op, "send", op.send_bytes, send_f, world);
  if (recv_f) need(op, "recv", op.recv_bytes, recv_f, world);
  const uint64_t e = dtype_size(op.dtype);
  if (send_f && recv_f && overlap(op.send, op.count * send_f * e, op.recv, op.count * recv_f * e) && !op_in_place(op, rank, world))
    throw_invalid(op.path + ".send and " + op.path + ".recv overlap but not in the in-place layout of " + op_kind_name(op.kind) + " (" +
                  layout_rule(op_traits(op.kind).in_place) + ")");
  if (op.data) validate_data(op, recv_f ? op.count * recv_f : 0);
}

}  // namespace clab
