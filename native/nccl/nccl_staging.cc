// The nccl backend's device copies of host buffers: made for each op (stage), or ahead of a
// compare block (prestage) and kept until its end (drain); outputs copied back to the host.
#include <algorithm>

#include "common/errors.h"
#include "data/data_host.h"
#include "gpu/gpu_errors.h"
#include "nccl/nccl_comm.h"

namespace clab {

void NcclComm::stage(const Op& op, Staged& out, Staging& staging, gpu::cudaStream_t stream) {
  if (op.kind == OpKind::Group) {
    out.children.resize(op.ops.size());
    for (size_t i = 0; i < op.ops.size(); i++) stage(op.ops[i], out.children[i], staging, stream);
    return;
  }
  if (op.kind == OpKind::Barrier) {
    out.send = out.recv = scratch_.get();
    return;
  }
  uint64_t sb = 0, rb = 0;
  op_buffer_bytes(op, rank_, world_, &sb, &rb);
  const std::string what = std::string(op_kind_name(op.kind)) + " (" + op.path + ")";
  // A symmetric window must come from ncclMemAlloc.
  const DeviceMemory::Kind kind = windowed(op) ? DeviceMemory::Kind::Window : DeviceMemory::Kind::Any;
  // The device buffers alias the way the host ones do, so NCCL runs the in-place form too
  // (all_to_all excepted: NCCL has no in-place all_to_all, and the host sees the same result).
  if (sb && rb && op.kind != OpKind::AllToAll && op_in_place(op, rank_, world_)) {
    const uint8_t* lo = std::min(op.send, op.recv);
    const uint8_t* hi = std::max(op.send + sb, op.recv + rb);
    staging.blocks.push_back(memory_->acquire(static_cast<uint64_t>(hi - lo), what, kind));
    uint8_t* base = staging.blocks.back().get();
    out.send = base + (op.send - lo);
    out.recv = base + (op.recv - lo);
  } else {
    if (sb) {
      staging.blocks.push_back(memory_->acquire(sb, what + " send buffer", kind));
      out.send = staging.blocks.back().get();
    }
    if (rb) {
      // A copy engine's target must be mappable by the sender's process (CUDA IPC): cudaMalloc'd.
      staging.blocks.push_back(
          memory_->acquire(rb, what + " recv buffer", op.transport == Transport::CopyEngine ? DeviceMemory::Kind::Shareable : kind));
      out.recv = staging.blocks.back().get();
      // Like the host's poisoned output: an element NCCL never writes cannot pass the check.
      cuda_check(*rt_, rt_->cudaMemsetAsync(out.recv, 0xff, rb, stream), "cudaMemsetAsync", rank_);
    }
  }
  if (op.data) {
    // Made on the GPU: recv poisoned (its in-place part included: an element never written cannot
    // pass), then send filled from the pattern; the output is checked there, never copied back.
    const uint64_t e = dtype_size(op.dtype);
    if (rb) cuda_check(*rt_, rt_->cudaMemsetAsync(out.recv, 0xff, rb, stream), "cudaMemsetAsync", rank_);
    if (sb && op.data->fill) kernels().fill(stream, out.send, sb / e, op.data->fill_spec, rank_);
    if (rb && op.data->check) staging.checks.push_back({op.data, out.recv, op.recv, rb / e});
    return;
  }
  if (sb)
    cuda_check(*rt_, rt_->cudaMemcpyAsync(out.send, op.send, sb, gpu::cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync (send data to the GPU)", rank_);
  if (rb) staging.copies.push_back({op.recv, out.recv, rb});
}

std::string NcclComm::data_unavailable() const {
  if (data_place_from_env() == "host") return "CLAB_DATA=host";
  return kernels_ ? "" : kernels_why_;
}

const DataKernels& NcclComm::kernels() const {
  if (!kernels_) throw ClabError(ErrCode::InvalidArgument, "rank " + std::to_string(rank_) + ": op.data was given but " + kernels_why_);
  return *kernels_;
}

void NcclComm::copy_back(const Staging& staging, gpu::cudaStream_t stream) {
  for (const CopyBack& c : staging.copies)
    cuda_check(*rt_, rt_->cudaMemcpyAsync(c.host, c.device, c.bytes, gpu::cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync (output to the host)", rank_);
  if (staging.checks.empty()) return;
  // Each check's program (segments, terms) and result in one small device block.
  std::vector<DeviceBlock> programs;
  std::vector<data::CheckResult*> results;
  for (const DataCheck& c : staging.checks) {
    const OpData& d = *c.data;
    const uint64_t seg_bytes = d.segments.size() * sizeof(data::Segment), term_bytes = d.terms.size() * sizeof(data::Term);
    const uint64_t term_at = (seg_bytes + 15) / 16 * 16, result_at = (term_at + term_bytes + 15) / 16 * 16;
    programs.push_back(memory_->acquire(result_at + sizeof(data::CheckResult), "a data check's program"));
    uint8_t* base = programs.back().get();
    cuda_check(*rt_, rt_->cudaMemcpyAsync(base, d.segments.data(), seg_bytes, gpu::cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync (check program)", rank_);
    cuda_check(*rt_, rt_->cudaMemcpyAsync(base + term_at, d.terms.data(), term_bytes, gpu::cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync (check program)", rank_);
    auto* result = reinterpret_cast<data::CheckResult*>(base + result_at);
    cuda_check(*rt_, rt_->cudaMemsetAsync(result, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync", rank_);
    cuda_check(*rt_, rt_->cudaMemsetAsync(&result->first, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync", rank_);
    data::Expect e = d.expect();
    e.segment = reinterpret_cast<const data::Segment*>(base);
    e.term = reinterpret_cast<const data::Term*>(base + term_at);
    kernels().check(stream, c.device, c.elements, e, result, rank_);
    results.push_back(result);
  }
  std::vector<data::CheckResult> got(results.size());
  for (size_t i = 0; i < results.size(); i++)
    cuda_check(*rt_, rt_->cudaMemcpyAsync(&got[i], results[i], sizeof got[i], gpu::cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync (check result)", rank_);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(stream), "cudaStreamSynchronize", rank_);
  // Where elements are wrong, the stretch from the first of them comes back to the host buffer, for
  // the first mismatches to be shown with their values (the host computes those few expected values).
  constexpr uint64_t kWindow = 1 << 16;
  for (size_t i = 0; i < results.size(); i++) {
    const DataCheck& c = staging.checks[i];
    if (got[i].wrong && got[i].first < c.elements) {
      const uint64_t e = dtype_size(static_cast<Dtype>(c.data->dtype));
      const uint64_t n = std::min<uint64_t>(kWindow, c.elements - got[i].first);
      cuda_check(*rt_,
                 rt_->cudaMemcpyAsync(c.host + got[i].first * e, c.device + got[i].first * e, n * e, gpu::cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync (wrong elements to the host)", rank_);
    }
  }
  cuda_check(*rt_, rt_->cudaStreamSynchronize(stream), "cudaStreamSynchronize", rank_);
  for (size_t i = 0; i < results.size(); i++) staging.checks[i].data->set_result(got[i]);
}

std::vector<uintptr_t> NcclComm::staging_key(const Op& op) {
  std::vector<uintptr_t> key;
  auto add = [&key](const Op& o, auto& self) -> void {
    key.push_back(static_cast<uintptr_t>(o.kind));
    if (o.kind == OpKind::Group) {
      key.push_back(o.ops.size());
      for (const Op& c : o.ops) self(c, self);
      return;
    }
    key.insert(key.end(), {reinterpret_cast<uintptr_t>(o.send), static_cast<uintptr_t>(o.send_bytes), reinterpret_cast<uintptr_t>(o.recv),
                           static_cast<uintptr_t>(o.recv_bytes)});
  };
  add(op, add);
  return key;
}

void NcclComm::prestage(const Op& op, StreamContext& ctx) {
  check_usable();
  use_device();
  if (op.kind == OpKind::Gemm || op.kind == OpKind::Barrier) return;
  StreamState& st = stream_state(ctx.index);
  auto staging = std::make_unique<Staging>();
  stage(op, staging->root, *staging, st.stream);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(st.stream), "cudaStreamSynchronize", rank_);
  std::lock_guard<std::mutex> lock(ahead_mu_);
  ahead_[staging_key(op)] = std::move(staging);
}

void NcclComm::drain(StreamContext& ctx) {
  check_usable();
  use_device();
  StreamState& st = stream_state(ctx.index);
  std::map<std::vector<uintptr_t>, std::unique_ptr<Staging>> done;
  {
    std::lock_guard<std::mutex> lock(ahead_mu_);
    done.swap(ahead_);
  }
  for (const auto& entry : done) copy_back(*entry.second, st.stream);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(st.stream), "cudaStreamSynchronize", rank_);
}

}  // namespace clab
