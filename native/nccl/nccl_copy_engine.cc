// A send by copy engine between two rank processes, one GPU each: the receiver's buffer is mapped
// into the sender's process with CUDA IPC (its handle travels in the exchange that lines the pair
// up, before the timed repetitions), and the sender copies into it with cudaMemcpyPeerAsync on the
// op's stream. A DMA engine moves the data: no SM of either GPU does. Each repetition's end reaches
// the receiver by a stream memory operation: the sender's stream writes a count into a flag in the
// receiver's memory (mapped the same way) after its copies, and the receiver's stream waits for it
// (cuStreamWriteValue32 / cuStreamWaitValue32), so no kernel of either side stands between the
// copy and what follows on the receiver (an overlapped GEMM has every SM). Where the driver lacks
// them, or CLAB_COPY_ENGINE_SIGNAL=nccl asks, a one-byte NCCL send after the copies ends it instead.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "nccl/nccl_comm.h"

namespace clab {

namespace {

constexpr uint32_t kMagic = 0x45436c43;  // "ClCE"

constexpr uint64_t kHandleBytes = gpu::kCudaIpcHandleBytes;

/** What each side of a pair says first: its GPU, its host, how its transfers end and, by memory operations, its flags. */
struct Header {
  uint32_t magic;
  int32_t device;
  uint64_t host;
  uint32_t memops;
  char flags[kHandleBytes];
};

/** The host's name, hashed (FNV-1a): a copy engine reaches only GPUs of its own machine. */
uint64_t host_id() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  uint64_t h = 1469598103934665603ull;
  for (const char* c = name; *c; c++) h = (h ^ static_cast<uint8_t>(*c)) * 1099511628211ull;
  return h;
}

bool by_copy_engine(const Op& op) { return op_is_p2p(op.kind) && op.transport == Transport::CopyEngine; }

/** The driver, where copy-engine transfers end by its stream memory operations; nullptr: by an NCCL byte. */
const gpu::CudaDriver* memops_driver() {
  static const gpu::CudaDriver* driver = [] {
    const char* how = std::getenv("CLAB_COPY_ENGINE_SIGNAL");
    if (how && std::string(how) == "nccl") return static_cast<const gpu::CudaDriver*>(nullptr);
    std::string why;
    const gpu::CudaDriver* d = gpu::load_cuda_driver(&why);
    return d && d->cuStreamWaitValue32_v2 && d->cuStreamWriteValue32_v2 ? d : nullptr;
  }();
  return driver;
}

}  // namespace

bool NcclComm::copy_memops() const { return memops_driver() != nullptr; }

void* NcclComm::open_peer_buffer(const gpu::cudaIpcMemHandle_t& handle) {
  const std::string key(handle.reserved, kHandleBytes);
  std::lock_guard<std::mutex> lock(peer_buffers_mu_);
  auto it = peer_buffers_.find(key);
  if (it != peer_buffers_.end()) return it->second;
  void* p = nullptr;
  cuda_check(*rt_, rt_->cudaIpcOpenMemHandle(&p, handle, gpu::kCudaIpcMemLazyEnablePeerAccess),
             "cudaIpcOpenMemHandle (the receiver's buffer)", rank_);
  peer_buffers_[key] = p;
  return p;
}

void NcclComm::align_copy_engine(const Op& op, const Staged& b, const StreamState& st, CopyTargets& targets) {
  const gpu::cudaStream_t s = st.stream;
  const bool memops = copy_memops();
  targets.memops = memops;
  targets.stream = st.index;
  if (memops) {
    std::lock_guard<std::mutex> lock(ce_mu_);
    if (!ce_flags_.get()) {
      const uint64_t slots = static_cast<uint64_t>(world_) * kMaxStreams;
      ce_flags_ = memory_->acquire(slots * sizeof(uint32_t), "the copy-engine flags", DeviceMemory::Kind::Shareable);
      // Zeroed before this rank's half of the exchange below, which is what lets a sender write.
      cuda_check(*rt_, rt_->cudaMemsetAsync(ce_flags_.get(), 0, slots * sizeof(uint32_t), s), "cudaMemsetAsync (copy-engine flags)", rank_);
      ce_sent_.assign(slots, 0);
      ce_received_.assign(slots, 0);
    }
  }
  std::vector<const Op*> items;
  std::vector<const Staged*> bufs;
  if (op.kind == OpKind::Group) {
    for (size_t i = 0; i < op.ops.size(); i++) {
      items.push_back(&op.ops[i]);
      bufs.push_back(&b.children[i]);
    }
  } else {
    items.push_back(&op);
    bufs.push_back(&b);
  }
  // Per peer: the handles this rank sends (its copy-engine receives from it) and gets (its sends).
  std::vector<uint64_t> handles_out(world_, 0), handles_in(world_, 0);
  std::vector<bool> peer(world_, false);
  bool collective = false;
  for (const Op* item : items) {
    if (!op_is_p2p(item->kind)) {
      collective = collective || item->kind != OpKind::Gemm;
      continue;
    }
    if (item->peer < 0 || item->peer >= world_) continue;
    peer[item->peer] = true;
    if (by_copy_engine(*item)) (item->kind == OpKind::Send ? handles_in : handles_out)[item->peer]++;
  }
  if (collective) align(op, s);  // lines every rank up; the pairs' exchange follows
  std::vector<uint64_t> at_out(world_, 0), at_in(world_, 0);
  uint64_t out_bytes = 0, in_bytes = 0;
  for (int p = 0; p < world_; p++) {
    if (!peer[p] || p == rank_) continue;
    at_out[p] = out_bytes;
    at_in[p] = in_bytes;
    out_bytes += sizeof(Header) + handles_out[p] * kHandleBytes;
    in_bytes += sizeof(Header) + handles_in[p] * kHandleBytes;
  }
  std::vector<uint8_t> out(out_bytes, 0), in(in_bytes, 0);
  Header me{kMagic, device_, host_id(), memops ? 1u : 0u, {}};
  if (memops) {
    gpu::cudaIpcMemHandle_t h{};
    cuda_check(*rt_, rt_->cudaIpcGetMemHandle(&h, ce_flags_.get()), "cudaIpcGetMemHandle (this rank's copy-engine flags)", rank_);
    std::memcpy(me.flags, h.reserved, kHandleBytes);
  }
  std::vector<uint64_t> filled(world_, 0);
  for (int p = 0; p < world_; p++)
    if (peer[p] && p != rank_) std::memcpy(out.data() + at_out[p], &me, sizeof me);
  for (size_t i = 0; i < items.size(); i++) {
    const Op& item = *items[i];
    if (!by_copy_engine(item) || item.kind != OpKind::Recv || item.peer == rank_ || !peer[item.peer]) continue;
    gpu::cudaIpcMemHandle_t h{};
    if (bufs[i]->recv)
      cuda_check(*rt_, rt_->cudaIpcGetMemHandle(&h, bufs[i]->recv), "cudaIpcGetMemHandle (this rank's receive buffer)", rank_);
    std::memcpy(out.data() + at_out[item.peer] + sizeof(Header) + filled[item.peer]++ * kHandleBytes, h.reserved, kHandleBytes);
  }
  DeviceBlock wire = memory_->acquire(out_bytes + in_bytes, "the copy-engine exchange");
  uint8_t* dev = wire.get();
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  cuda_check(*rt_, rt_->cudaMemcpyAsync(dev, out.data(), out_bytes, gpu::cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (exchange)", rank_);
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  for (int p = 0; p < world_; p++) {
    if (!peer[p] || p == rank_) continue;
    if (op.comm == 0) {  // NCCL numbers these too (the profiler's join, nccl_ops.cc)
      next_p2p(true, p);
      next_p2p(false, p);
    }
    nccl(n.ncclSend(dev + at_out[p], sizeof(Header) + handles_out[p] * kHandleBytes, gpu::ncclUint8, p, c, s),
         "ncclSend (copy-engine exchange)");
    nccl(n.ncclRecv(dev + out_bytes + at_in[p], sizeof(Header) + handles_in[p] * kHandleBytes, gpu::ncclUint8, p, c, s),
         "ncclRecv (copy-engine exchange)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
  cuda_check(*rt_, rt_->cudaMemcpyAsync(in.data(), dev + out_bytes, in_bytes, gpu::cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (exchange)",
             rank_);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(s), "cudaStreamSynchronize (copy-engine exchange)", rank_);
  // Both ranks of a pair judge the same two GPUs, so both refuse alike.
  for (int p = 0; p < world_; p++) {
    if (!peer[p] || p == rank_ || (handles_in[p] == 0 && handles_out[p] == 0)) continue;
    Header their{};
    std::memcpy(&their, in.data() + at_in[p], sizeof their);
    if (their.magic != kMagic)
      throw_invalid("rank " + std::to_string(p) + " did not take part in the copy-engine transfer with rank " + std::to_string(rank_) +
                    " (both sides of a transfer must name \"transport\": \"copy-engine\")");
    const bool sending = handles_in[p] > 0;
    const int from = sending ? rank_ : p, to = sending ? p : rank_;
    const int from_gpu = sending ? device_ : their.device, to_gpu = sending ? their.device : device_;
    const std::string pair = "a copy-engine transfer from rank " + std::to_string(from) + " (GPU " + std::to_string(from_gpu) +
                             ") to rank " + std::to_string(to) + " (GPU " + std::to_string(to_gpu) + ")";
    if (their.host != me.host)
      throw ClabError("CLAB_UNSUPPORTED", pair +
                                              " is refused: the ranks run on different hosts, and a copy engine reaches only GPUs of "
                                              "its own machine; use \"transport\": \"nccl\"");
    int can = 1;
    if (from_gpu != to_gpu) cuda_check(*rt_, rt_->cudaDeviceCanAccessPeer(&can, from_gpu, to_gpu), "cudaDeviceCanAccessPeer", rank_);
    if (!can)
      throw ClabError("CLAB_UNSUPPORTED", pair +
                                              " is refused: CUDA gives these GPUs no peer access (cudaDeviceCanAccessPeer is 0), so "
                                              "neither GPU's copy engine can write into the other's memory; use \"transport\": \"nccl\"");
    if ((their.memops != 0) != memops)
      throw ClabError("CLAB_UNSUPPORTED", pair + " is refused: rank " + std::to_string(memops ? rank_ : p) +
                                              " ends it with a stream memory operation and rank " + std::to_string(memops ? p : rank_) +
                                              " with an NCCL byte (CLAB_COPY_ENGINE_SIGNAL differs between them, or one's CUDA driver "
                                              "lacks cuStreamWaitValue32_v2); give both the same");
    if (!memops) continue;
    // A receiver keeps a flag per sender and stream; the op runs on the same stream on both ranks.
    const auto slot = [&](int sender) { return static_cast<uint64_t>(sender) * kMaxStreams + static_cast<uint64_t>(st.index); };
    if (handles_in[p] > 0) {  // this rank sends to p
      gpu::cudaIpcMemHandle_t h{};
      std::memcpy(h.reserved, their.flags, kHandleBytes);
      auto* flags = static_cast<uint32_t*>(open_peer_buffer(h));
      targets.signal.emplace_back(p, reinterpret_cast<gpu::CUdeviceptr>(flags + slot(rank_)));
    }
    if (handles_out[p] > 0)  // p sends to this rank
      targets.await.emplace_back(p, reinterpret_cast<gpu::CUdeviceptr>(reinterpret_cast<uint32_t*>(ce_flags_.get()) + slot(p)));
  }
  std::vector<uint64_t> taken(world_, 0);
  for (const Op* item : items) {
    if (!by_copy_engine(*item) || item->kind != OpKind::Send || item->peer == rank_) continue;
    const int p = item->peer;
    Header their{};
    std::memcpy(&their, in.data() + at_in[p], sizeof their);
    gpu::cudaIpcMemHandle_t h{};
    std::memcpy(h.reserved, in.data() + at_in[p] + sizeof(Header) + taken[p]++ * kHandleBytes, kHandleBytes);
    const bool empty = item->count == 0;
    targets.sends.push_back({empty ? nullptr : open_peer_buffer(h), their.device});
  }
}

void NcclComm::issue_with_copies(const Op& op, const Staged& b, gpu::cudaStream_t s, const CopyTargets& targets) {
  const auto& n = *nccl_;
  const gpu::ncclComm_t c = communicator(op.comm);
  const bool group = op.kind == OpKind::Group;
  const size_t count = group ? op.ops.size() : 1;
  auto item = [&](size_t i) -> const Op& { return group ? op.ops[i] : op; };
  auto bufs = [&](size_t i) -> const Staged& { return group ? b.children[i] : b; };
  size_t t = 0;
  for (size_t i = 0; i < count; i++) {
    const Op& o = item(i);
    if (!by_copy_engine(o) || o.kind != OpKind::Send) continue;
    const CopyTarget& to = targets.sends.at(t++);
    if (to.dst)
      cuda_check(*rt_, rt_->cudaMemcpyPeerAsync(to.dst, to.device, bufs(i).send, device_, o.count * dtype_size(o.dtype), s),
                 "cudaMemcpyPeerAsync (copy-engine send)", rank_);
  }
  if (targets.memops) {
    bool others = false;
    for (size_t i = 0; i < count && !others; i++) others = !by_copy_engine(item(i));
    if (others) {
      nccl(n.ncclGroupStart(), "ncclGroupStart");
      for (size_t i = 0; i < count; i++)
        if (!by_copy_engine(item(i))) issue(item(i), bufs(i), s);
      nccl(n.ncclGroupEnd(), "ncclGroupEnd");
    }
    // After the copies in stream order, with the fence a write carries before it: the receiver
    // that sees the count sees the data.
    const gpu::CudaDriver& d = *memops_driver();
    const auto driver_check = [&](gpu::CUresult r, const char* call) {
      if (r != gpu::CUDA_SUCCESS)
        throw ClabError(ErrCode::SystemError, std::string(call) + " failed on rank " + std::to_string(rank_) + ": " +
                                                  gpu::driver_error_text(d, r) +
                                                  "; CLAB_COPY_ENGINE_SIGNAL=nccl ends copy-engine transfers with an NCCL byte instead");
    };
    const uint64_t row = static_cast<uint64_t>(targets.stream);
    for (const auto& [peer, flag] : targets.signal)
      driver_check(
          d.cuStreamWriteValue32_v2(s, flag, ++ce_sent_[static_cast<uint64_t>(peer) * kMaxStreams + row], gpu::kCuStreamWriteValueDefault),
          "cuStreamWriteValue32 (copy-engine send done)");
    for (const auto& [peer, flag] : targets.await)
      driver_check(
          d.cuStreamWaitValue32_v2(s, flag, ++ce_received_[static_cast<uint64_t>(peer) * kMaxStreams + row], gpu::kCuStreamWaitValueGeq),
          "cuStreamWaitValue32 (copy-engine receive)");
    return;
  }
  uint8_t* base = scratch_.get();
  nccl(n.ncclGroupStart(), "ncclGroupStart");
  for (size_t i = 0; i < count; i++) {
    const Op& o = item(i);
    if (!by_copy_engine(o)) {
      issue(o, bufs(i), s);
      continue;
    }
    const uint64_t slot = kAlignRecv + static_cast<uint64_t>(o.peer) % (kScratchBytes - kAlignRecv);
    if (op.comm == 0) next_p2p(o.kind == OpKind::Send, o.peer);
    if (o.kind == OpKind::Send) nccl(n.ncclSend(base + kAlignSend, 1, gpu::ncclUint8, o.peer, c, s), "ncclSend (copy done)");
    else
      nccl(n.ncclRecv(base + slot, 1, gpu::ncclUint8, o.peer, c, s), "ncclRecv (copy done)");
  }
  nccl(n.ncclGroupEnd(), "ncclGroupEnd");
}

}  // namespace clab
