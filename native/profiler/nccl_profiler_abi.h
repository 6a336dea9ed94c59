// Our declarations of NCCL's profiler plug-in interface (what NCCL 2.28 calls `ncclProfiler_v5`,
// 2.29 and 2.30 `ncclProfiler_v6` and 2.31 `ncclProfiler_v7`), limited to what the lab reads. NCCL
// hands the plug-in a descriptor per event; only the members of its union we read are declared,
// each laid out as NCCL's, which fixes their offsets. v6 adds copy-engine members to the same
// union, v7 members at the end of some (a Coll's kernel variant, the tag of a call): one reader serves all three, and
// reads v7's members only where NCCL took v7 (an older NCCL's descriptor ends before them).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace clab::nccl_profiler {

using Result = int;  // ncclResult_t; 0 is success
constexpr Result kSuccess = 0;

// Event types, also the bits of the activation mask the plug-in sets in init.
constexpr uint64_t kColl = 1 << 1;
constexpr uint64_t kP2p = 1 << 2;
constexpr uint64_t kProxyOp = 1 << 3;
constexpr uint64_t kProxyStep = 1 << 4;
constexpr uint64_t kKernelCh = 1 << 6;
// v6 (NCCL 2.29): a collective run on copy engines, with no kernel (CTA policy zero on windows).
constexpr uint64_t kCeColl = 1 << 12;

// The state NCCL records when a channel's kernel is seen to end (args carry its %globaltimer).
constexpr int kKernelChStop = 22;
// A proxy step's states (args carry the bytes it moved): a send waits for the GPU to fill its
// buffer, for the peer's credit (v4 and later), then for the network; a receive waits for the
// network, its flush, then for the GPU to take the data.
constexpr int kProxyStepSendGpuWait = 8;
constexpr int kProxyStepSendWait = 9;
constexpr int kProxyStepRecvWait = 10;
constexpr int kProxyStepRecvFlushWait = 11;
constexpr int kProxyStepRecvGpuWait = 12;
constexpr int kProxyStepSendPeerWait = 20;

struct EventDescr {
  uint64_t type;
  void* parent;  // the handle the plug-in returned for the parent event (a KernelCh's Coll or P2p)
  int rank;
  union {
    struct {
      uint64_t seq_number;  // per collective type per communicator
      const char* func;
      const void* send_buff;
      void* recv_buff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t n_channels;
      uint8_t n_warps;
      const char* algo;
      const char* proto;
      void* parent_group;
      // v7 (NCCL 2.31) only: the kernel NCCL launched, whether it is a symmetric one, and the tag
      // the call was made with (ncclCollConfig_t.userProfilerTag; 0: none).
      const char* kernel_variant;
      bool is_sym_coll;
      uint64_t user_tag;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t n_channels;
      void* parent_group;
      uint64_t user_tag;  // v7 only
    } p2p;
    struct {
      pid_t pid;
      uint8_t channel_id;
      int peer;
      int n_steps;
      int chunk_size;
      int is_send;
    } proxy_op;
    struct {
      int step;
    } proxy_step;
    struct {
      uint8_t channel_id;
      uint64_t p_timer;  // the GPU's %globaltimer when the channel's kernel started
    } kernel_ch;
    struct {
      uint64_t seq_number;  // NCCL's count of its copy-engine synchronisations, not the call's number
      const char* func;
      const void* send_buff;
      void* recv_buff;
      size_t count;
      int root;
      const char* datatype;
      const char* sync_strategy;  // "MC": NVLink multicast; "UC": unicast
      // Declared for the offset of v7's tag after them; not read.
      bool intra_batch_sync;
      uint32_t batch_size;
      uint32_t num_batches;
      uint32_t ce_seq_num;
      void* stream;
      uint64_t user_tag;  // v7 only
    } ce_coll;
  };
};

union StateArgs {
  struct {
    size_t trans_size;
  } proxy_step;
  struct {
    uint64_t p_timer;  // the GPU's %globaltimer when the channel's kernel ended
  } kernel_ch;
};

using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

struct Table {
  const char* name;
  Result (*init)(void** context, uint64_t comm_id, int* activation_mask, const char* comm_name, int n_nodes, int n_ranks, int rank,
                 Logger log);
  Result (*start_event)(void* context, void** handle, EventDescr* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

}  // namespace clab::nccl_profiler
