// The nccl backend: one rank of an NCCL communicator on one GPU. Host buffers come in (the
// NativeComm contract); device buffers (device_memory.h) stand for them: the send data is copied
// in before the repetitions and the output copied back after them, both untimed. Each stream
// index has its own non-blocking cudaStream_t; every repetition is timed between a pair of CUDA
// events, mapped onto CLOCK_MONOTONIC through a reference event recorded on the idle stream, and
// on request the repetitions run once more as one loop between a single pair (nccl-tests' way).
// Communication from several streams is issued in enqueue order (admit()), so every rank issues
// the same sequence, and a GEMM after the communication enqueued before it. Waits poll the
// events, ncclCommGetAsyncError and the abort flag. No Node-API.
//
// nccl_comm.cc joins and leaves the communicator, nccl_execute.cc runs and times an op,
// nccl_order.cc orders communication and polls, nccl_staging.cc copies buffers to and from the
// GPU, nccl_ops.cc turns an op into library calls, nccl_copy_engine.cc moves a send by copy engine.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/comm.h"
#include "data/data_device.h"
#include "gpu/device_memory.h"
#include "gpu/gpu_gemm.h"
#include "gpu/gpu_loader.h"
#include "nccl/gemm_handoff.h"

namespace clab {

/**
 * NCCL settings of a communicator split from the run's (a compare variant's `nccl`): ops with
 * Op::comm = i + 1 run on the i-th. 0 / -1: NCCL's own choice.
 */
struct CommSetting {
  int max_ctas = 0;     // ncclConfig_t.maxCTAs: bounds every kernel's CTAs, and so its channels (p2p too)
  int cta_policy = -1;  // ncclConfig_t.CTAPolicy (NCCL_CTA_POLICY_*)
};

/** The NCCL version a setting needs beyond the split itself (2.18), or 0. */
int comm_setting_needs(const CommSetting& setting);

class NcclComm final : public Comm {
 public:
  /** A fresh ncclUniqueId as base64 of its 128 bytes (rank 0 calls it; the core relays it). */
  static std::string create_unique_id();

  /**
   * Creates the CUDA context of `device` (cudaSetDevice, cudaFree(0)) so that a rank can do it
   * while its communicator's id is still on the way. Blocks; throws ClabError naming `rank`.
   */
  static void prepare_device(int device, int rank);
  /**
   * Loads cuBLAS and makes (and drops) a handle on `device`: its one-time set-up (some 300 ms on
   * an H200, measured) then happens while the communicator is joined, not in the first GEMM step.
   */
  static void warm_gemm(int device, int rank, const std::vector<GpuGemm::Shape>& shapes);

  /**
   * Joins the communicator on `device` (ncclCommInitRank): blocks until every rank has joined.
   * Bit i of `priority_streams` set: stream i is created at the device's highest priority.
   * `register_buffers`: every buffer from ncclMemAlloc, registered with the communicator (device_memory.h).
   * `settings`: communicators split from it (ncclCommSplit), one per setting, each with its
   * config; one the loaded NCCL cannot make is left out, and its ops are refused (CLAB_UNSUPPORTED).
   */
  NcclComm(const std::string& id, int rank, int world, int device, unsigned priority_streams = 0, bool register_buffers = false,
           const std::vector<CommSetting>& settings = {});
  ~NcclComm() override;

  int rank() const override { return rank_; }
  int world() const override { return world_; }
  int device() const { return device_; }
  const std::string& bus_id() const { return bus_id_; }
  /** major × 10 + minor (9.0 → 90), as NCCL compares it; -1 unknown. */
  int compute_capability() const { return compute_capability_; }
  /** ncclGetVersion's code of the loaded library (2.28.3 → 22803). */
  int nccl_version() const { return nccl_version_; }

  /**
   * The tag of the calls this thread issues while it lives (0: none; NCCL reserves those with the
   * most significant bit set): NCCL 2.31's profiler hands it to the plug-in with each call's events
   * (issue()). The binding sets a step's around its execute() on the stream thread that runs it, which
   * issues every call of it (graph capture too); a thread's tag, as Op and Times are shared by
   * every backend, and the cpu one has no use for it.
   */
  class CallTag {
   public:
    explicit CallTag(uint64_t tag);
    ~CallTag();
    CallTag(const CallTag&) = delete;
    CallTag& operator=(const CallTag&) = delete;

   private:
    uint64_t previous_;
  };

  uint64_t admit(const Op& op, int stream, bool gemm_follows) override;
  void execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) override;
  void prestage(const Op& op, StreamContext& ctx) override;
  void drain(StreamContext& ctx) override;
  void abort(const std::string& reason) override;
  void close() override;
  /** Its kernels' reason, or CLAB_DATA=host (for comparing both paths). */
  std::string data_unavailable() const override;
  bool launches_graphs() const override { return true; }

 private:
  struct StreamState {
    gpu::cudaStream_t stream = nullptr;
    int index = 0;  // in streams_
    gpu::cudaEvent_t staged = nullptr, reference = nullptr;
    gpu::cudaEvent_t loop_begin = nullptr, loop_end = nullptr;  // around the loop timed as a whole
    gpu::cudaEvent_t data_marks[4] = {};                        // around the data kernels' fill and check (op_data.h)
    uint64_t t_ref = 0;                                         // the host clock when `reference` completed
    std::vector<gpu::cudaEvent_t> marks;                        // start/end of each repetition of a batch
    DeviceBlock stamps;  // %globaltimer before each repetition of a loop that reads them inside (kBatch of them)
    std::unique_ptr<GpuGemm> gemm;
  };
  /** Device pointers standing for one op's host buffers, and what to copy back. */
  struct Staged {
    uint8_t* send = nullptr;
    uint8_t* recv = nullptr;
    std::vector<Staged> children;  // group members
  };
  struct CopyBack {
    uint8_t* host;
    const uint8_t* device;
    uint64_t bytes;
  };
  /** An output the data kernels check (op_data.h) instead of copying it back. */
  struct DataCheck {
    std::shared_ptr<const OpData> data;
    const uint8_t* device;
    uint8_t* host;
    uint64_t elements;
  };
  struct Staging {
    Staged root;
    std::vector<DeviceBlock> blocks;
    std::vector<CopyBack> copies;
    std::vector<DataCheck> checks;
  };

  /** Where one copy-engine send of an op lands: the receiver's buffer, mapped here (CUDA IPC). */
  struct CopyTarget {
    void* dst = nullptr;
    int device = -1;  // the receiver's CUDA index
  };
  /**
   * What an op's copy-engine transfers need, learnt as it lines its ranks up: its sends' targets, in
   * op order, and how each repetition's transfers end. With stream memory operations (`memops`),
   * the sender writes, after its copies, the count of its transfers to each receiver on this stream
   * into the flag the receiver keeps for it (mapped here: `signal`), and the receiver's stream waits
   * until its own flag for each sender holds its count (`await`); else a one-byte NCCL send ends them.
   */
  struct CopyTargets {
    std::vector<CopyTarget> sends;
    bool memops = false;
    int stream = 0;
    std::vector<std::pair<int, gpu::CUdeviceptr>> signal, await;  // peer, flag
  };

  void use_device() const;
  /** The communicator op.comm names: 0 the run's, i a split one (nccl_settings.cc); throws CLAB_UNSUPPORTED if it was left out. */
  gpu::ncclComm_t communicator(int index) const;
  /** Splits one communicator per setting off the run's (every rank at once, at join). */
  void split(const std::vector<CommSetting>& settings);
  /** Whether the op's buffers are symmetric windows: it says so (Op::window), or its communicator has the zero-SM policy. */
  bool windowed(const Op& op) const;
  /**
   * For a windowed() op: registers its buffers as NCCL windows on its communicator (a collective
   * call, made in the op's turn so every rank makes it in the same order), after deregistering the
   * previous op's there; counts in `times` the windows asked and those NCCL gave none for.
   */
  void register_windows(const Op& op, const Staged& bufs, Times& times);
  StreamState& stream_state(int index);
  void stage(const Op& op, Staged& out, Staging& staging, gpu::cudaStream_t stream);
  /** Copies outputs back to the host, and checks on the GPU those that have data (op_data.h); waits for both. */
  void copy_back(const Staging& staging, gpu::cudaStream_t stream);
  /** The data kernels, or throws saying why there are none (JS asks makes_data() first). */
  const DataKernels& kernels() const;
  /** Identifies an op by its kind and host buffers (group members in order). */
  static std::vector<uintptr_t> staging_key(const Op& op);
  /** Enqueues one repetition of `op` (nccl_ops.cc). */
  void issue(const Op& op, const Staged& bufs, gpu::cudaStream_t stream);
  void issue_all_to_all(const Op& op, const Staged& bufs, gpu::cudaStream_t stream);
  void issue_gather(const Op& op, const Staged& bufs, gpu::cudaStream_t stream);
  void issue_scatter(const Op& op, const Staged& bufs, gpu::cudaStream_t stream);
  /**
   * Lines this rank up with the ranks `op` talks to, on `stream`, before the timed repetitions:
   * the first repetition's start event then fires when every participant is there, so a rank that
   * arrives early (its peer still copying input to its GPU) does not time its wait. A one-float
   * all_reduce where a collective takes part, else a one-byte exchange with each p2p peer.
   */
  void align(const Op& op, gpu::cudaStream_t stream);
  /**
   * align() for an op with copy-engine sends or receives (nccl_copy_engine.cc): each pair of peers
   * exchanges its GPU, host and, from the receiver, a CUDA IPC handle of each receive buffer; the
   * sender maps them into `targets`. Both refuse alike (CLAB_UNSUPPORTED) without peer access.
   */
  void align_copy_engine(const Op& op, const Staged& bufs, const StreamState& st, CopyTargets& targets);
  /**
   * One repetition of an op with copy-engine members: the copies (cudaMemcpyPeerAsync), then in one
   * group the op's NCCL members, and the transfers' ends (CopyTargets), so that the receive ends
   * when its data is there.
   */
  void issue_with_copies(const Op& op, const Staged& bufs, gpu::cudaStream_t stream, const CopyTargets& targets);
  /** The receiver's buffer behind `handle`, mapped into this process once (cudaIpcOpenMemHandle). */
  void* open_peer_buffer(const gpu::cudaIpcMemHandle_t& handle);
  void nccl(gpu::ncclResult_t r, const char* call) const;

  /** execute() of a GEMM: launched once the communication enqueued before it has been issued and lined up. */
  void execute_gemm(const Op& op, int repeat, uint64_t ticket, int stream_index, StreamState& st, Times& times);
  /** execute() of a collective, p2p, group or barrier: staged, lined up, numbered for the profiler, timed, copied back. */
  void execute_communication(const Op& op, int repeat, uint64_t ticket, StreamState& st, Times& times);
  /** The op's prestaged buffers (a compare block's, kept until drain()), or nullptr. */
  Staging* prestaged(const Op& op);
  /** Stages `op` into `own` on `st`'s stream, with the data kernels' fill marked where `data`; aborts on failure. */
  void stage_marked(const Op& op, Staging& own, StreamState& st, bool data);
  /** copy_back() of `own`, with the data kernels' check marked where `data`. */
  void copy_back_marked(const Staging& own, StreamState& st, bool data);
  /**
   * The send or receive whose number a run of `op` records: `op` itself, or a group's first (NCCL
   * launches the group as one kernel, whose channels that call's events carry); nullptr for none.
   */
  const Op* numbered_p2p(const Op& op, bool copies) const;
  /**
   * Whether copy-engine transfers end by stream memory operations (the driver has them, and
   * CLAB_COPY_ENGINE_SIGNAL is not "nccl"): decided once per process, alike on every rank of a
   * machine; lining up refuses a pair whose ranks differ.
   */
  bool copy_memops() const;
  /**
   * Runs `repeat` repetitions of `enqueue_one` between event pairs and fills times.start/end;
   * with times.loop_wanted, first `repeat` more with one event pair around them all (loop_start/end),
   * with times.graph_wanted captured in a CUDA graph before the line-up and replayed once there;
   * with times.events_in_loop (and no graph, no profiler plug-in, at most one batch), the loop
   * alone, an event between each two repetitions giving both. `spin`: wait for the end without ever sleeping.
   */
  template <class F>
  void timed(StreamState& st, int repeat, uint64_t ticket, F enqueue_one, Times& times, const std::function<void()>& align_first,
             bool spin);
  /** Records the reference event on the idle stream and returns the host clock when it completed. */
  uint64_t reference(StreamState& st);
  /** The host clock when `ev` (recorded on `st`'s stream, completed) happened, from the last reference. */
  uint64_t clock_of(StreamState& st, gpu::cudaEvent_t ev);
  /** Makes the stream's timing events (StreamState::marks) up to `n`; they are kept for its later ops. */
  void ensure_marks(StreamState& st, size_t n);
  /** Records data mark `i` (0, 1: fill; 2, 3: check) on `st`'s stream, creating the events on first use. */
  void data_mark(StreamState& st, int i);
  /** Polls `ev` until it completes; throws on a CUDA error, an NCCL async error or abort. */
  void wait_event(gpu::cudaEvent_t ev, bool spin);
  /** Whether `ev` has completed; throws a CUDA error as `waiting_for`'s. */
  bool completed(gpu::cudaEvent_t ev, const char* waiting_for) const;
  /**
   * Calls `done` until it returns true, between calls throwing on an NCCL async error or abort, and
   * yielding (`spin`: always; else for kPollSpinNs, then sleeping a little longer each time).
   */
  void poll_until(const std::function<bool()>& done, bool spin);
  void wait_turn(uint64_t ticket);
  /** Waits until the first `tickets` communication tickets have been issued (or abort). */
  void wait_issued(uint64_t tickets);
  /** Marks, on `stream`, where communication ticket `ticket` has lined its ranks up (right after align()). */
  /** `uses_no_sm`: the op runs no kernel (copy-engine transfers ended by memory operations alone). */
  void publish_lined_up(uint64_t ticket, gpu::cudaStream_t stream, bool uses_no_sm);
  /** Polls until communication ticket `ticket` has lined up on the GPU, if it was published. */
  void wait_lined_up(uint64_t ticket);
  /**
   * A GEMM's wait for the `tickets` communication tickets enqueued before it: until they have been
   * issued and the last has lined up (wait_issued, wait_lined_up), or, where the last runs no
   * kernel, only until it has lined up: the GEMM then takes no SM from it, and starts beside it.
   */
  void wait_before_gemm(uint64_t tickets, gpu::cudaStream_t gemm_stream);
  /**
   * A GEMM of one repetition after communication ticket `last`, which hands it off: offered to that
   * ticket's thread, which launches it as its ranks line up (gemm_handoff.h), and timed here.
   * false: not taken (not handed off, too late, declined): launch it as usual.
   */
  bool gemm_handed_off(uint64_t last, StreamState& st, Times& times);
  /** Whether `op` runs no kernel: copy-engine transfers alone, ended by stream memory operations. */
  bool runs_no_kernel(const Op& op) const;
  void end_turn();
  void check_usable() const;
  [[noreturn]] void throw_aborted() const;
  /** CLAB_TRACE set: where a rank's start and end go, on stderr (diagnostics only). */
  static bool tracing();

  /** How a GEMM behind a transfer that runs no kernel is released (CLAB_GEMM_RELEASE, nccl_order.cc). */
  enum class GemmRelease { Handoff, Host, Gpu };
  static GemmRelease gemm_release();

  static constexpr uint64_t kNoTicket = std::numeric_limits<uint64_t>::max();
  // How long a transfer that hands its GEMM off waits, before lining up, for the GEMM's thread to
  // offer it: that thread makes its handle and operands first (~1–2 ms on a stream's first GEMM).
  static constexpr uint64_t kHandoffWaitNs = 5000000;
  // A gemm's ticket: this bit and the number of communication tickets handed out before it.
  static constexpr uint64_t kAfterComm = uint64_t{1} << 62;

  const gpu::CudaRuntime* rt_ = nullptr;
  const gpu::NcclLibrary* nccl_ = nullptr;
  gpu::ncclComm_t comm_ = nullptr;
  /** Split off comm_, one per setting (nullptr: the loaded NCCL cannot make it; why in `refused`). */
  struct Split {
    CommSetting setting;
    gpu::ncclComm_t comm = nullptr;
    std::string refused;
    std::vector<gpu::ncclWindow_t> windows;  // the last windowed op's registered windows
  };
  std::vector<Split> splits_;
  std::vector<gpu::ncclWindow_t> windows_;  // the last windowed op's windows on comm_
  int nccl_version_ = 0;
  int rank_, world_, device_;
  unsigned priority_streams_ = 0;
  std::string bus_id_;
  int compute_capability_ = -1;
  std::unique_ptr<DeviceMemory> memory_;
  const DataKernels* kernels_ = nullptr;  // null: kernels_why_ says why
  std::string kernels_why_;
  // [0, 4): the barrier's one float; [kAlignSend]: the byte each rank sends when lining up with its
  // peers; [kAlignRecv + peer]: where the byte from `peer` lands.
  DeviceBlock scratch_;
  static constexpr uint64_t kScratchBytes = 4096, kAlignSend = 8, kAlignRecv = 64;
  std::array<std::unique_ptr<StreamState>, kMaxStreams> streams_;
  /** Receivers' buffers mapped for copy-engine sends, by their IPC handle; closed at close(). */
  std::mutex peer_buffers_mu_;
  std::map<std::string, void*> peer_buffers_;
  // Copy-engine transfers ended by stream memory operations: this rank's flags, one per sender and
  // stream ([sender × kMaxStreams + stream], made at the first such line-up, under ce_mu_), and the
  // transfers counted each way per peer and stream ([peer × kMaxStreams + stream]; each slot touched by
  // its stream's thread alone). One stream runs its transfers in order on both ranks of a pair, so
  // the counts agree and a flag only grows.
  std::mutex ce_mu_;
  DeviceBlock ce_flags_;
  std::vector<uint32_t> ce_sent_, ce_received_;
  /** Prestaged ops by their host buffers (staging_key()): device buffers already filled. */
  std::mutex ahead_mu_;
  std::map<std::vector<uintptr_t>, std::unique_ptr<Staging>> ahead_;

  std::mutex turn_mu_;
  std::condition_variable turn_cv_;
  uint64_t admitted_ = 0;  // JS thread: tickets handed out
  uint64_t turn_ = 0;      // the ticket whose communication may be issued now
  // Events recorded where recent communication tickets lined up (slot = ticket % size): a GEMM
  // issued after one is launched once it has completed (see execute()). Guarded by turn_mu_.
  struct LinedUp {
    uint64_t ticket = ~uint64_t{0};
    gpu::cudaEvent_t event = nullptr;
    bool uses_no_sm = false;
  };
  std::array<LinedUp, 64> lined_up_{};
  /** GEMMs launched at the line-up of a transfer that runs no kernel, by its thread (admit(), execute()). */
  GemmHandoff handoff_;

  // NCCL's sequence number of the next call of each collective that has one, per communicator
  // (seq_slot(): all_reduce, with barriers and line-ups, broadcast, reduce, all_gather,
  // reduce_scatter); Times::seq gives them to the profiler's join.
  std::array<std::atomic<uint64_t>, 5> seq_{};
  static int seq_slot(OpKind kind);
  // The same for point-to-point calls, which NCCL does not number: the calls of each direction to
  // each peer, counted alike by the profiler's join (line-ups included): [send ? 0 : world_] + peer.
  // Atomics, not a map under a lock: a loop of small sends reads or bumps them once per call.
  std::unique_ptr<std::atomic<uint64_t>[]> p2p_seq_;
  std::atomic<uint64_t>* p2p_counter(bool send, int peer) {
    return peer >= 0 && peer < world_ ? &p2p_seq_[(send ? 0 : world_) + peer] : nullptr;
  }
  /** Loops being issued with the profiler paused: their sends and receives are not counted (next_p2p). */
  std::atomic<int> unprofiled_{0};
  uint64_t next_p2p(bool send, int peer);
  uint64_t peek_p2p(bool send, int peer);

  std::atomic<bool> aborted_{false};
  mutable std::mutex reason_mu_;
  std::string abort_reason_;
  std::atomic<int> in_nccl_{0};  // stream threads inside an NCCL call right now
  std::atomic<bool> nccl_aborted_{false};
  std::atomic<bool> closed_{false};
};

}  // namespace clab
