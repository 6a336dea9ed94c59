// The cpu backend: one rank of a communicator whose ranks are processes sharing a POSIX shm
// segment (shm_segment.h). Collectives move data through double-buffered shared slots, chunk by
// chunk, one barrier per chunk (cpu_collectives.cc); send/recv go through per-(src,dst) ring
// mailboxes and progress together inside a group (cpu_p2p.cc). No Node-API here.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/comm.h"
#include "common/gemm.h"
#include "common/op.h"
#include "cpu/futex.h"
#include "cpu/shm_segment.h"

namespace clab {

class CpuComm final : public Comm {
 public:
  /**
   * Creates the segment of a `world`-rank communicator and returns its name. Tuning (read here,
   * stored in the segment so that all ranks agree): CLAB_CPU_SLOT_BYTES (bytes per rank per chunk
   * of a collective), CLAB_CPU_MAILBOX_BYTES (ring size of each send/recv mailbox).
   */
  static std::string create_unique_id(int world);

  CpuComm(const std::string& id, int rank, int world);
  ~CpuComm() override;

  int rank() const override { return rank_; }
  int world() const override { return world_; }

  /** Hands communication ops their turn, in enqueue (plan) order; gemm needs none. JS thread. */
  uint64_t admit(const Op& op, int stream, bool gemm_follows) override;

  /**
   * Runs `op` `repeat` times back to back, recording CLOCK_MONOTONIC ns around each repetition.
   * gemm runs on the stream's workspace alongside; a communication op first waits for its turn
   * (`ticket`), so every rank enters its collectives in plan order whichever stream runs them.
   */
  void execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) override;

  /** Marks the communicator aborted for every rank (first reason wins) and wakes all waiters. */
  void abort(const std::string& reason) override;
  /** Detaches and unmaps. Call once no stream thread can touch the segment. Idempotent. */
  void close() override;
  /**
   * The host path (JS) makes and checks cpu ranks' data as fast as this backend would in the same
   * memory, and skips exact matches with memcmp; CLAB_DATA=backend has this backend do it
   * instead (data_program.h on the host), which is how the tests run that path without a GPU.
   */
  std::string data_unavailable() const override;

 private:
  void run_comm(const Op& op);
  void run_group(const Op& group);

  // cpu_collectives.cc: run_comm's switch and one kernel per collective op kind, so that a new
  // collective touches that file only.
  template <OpKind K>
  void collective(const Op& op);
  void reduce_like(const Op& op, bool all);
  void gather_like(const Op& op, bool all);
  void coll_begin(const Op& op);
  void coll_sync(bool first);
  void coll_end(uint64_t chunks);
  std::string signature_mismatch() const;  // "" when every rank announced the same call

  // cpu_p2p.cc
  void run_p2p(const std::vector<const Op*>& ops);

  // Waiting: abort flag, dead or departed peers.
  void check_abort();
  [[noreturn]] void throw_aborted();
  void set_abort(int by_rank, const std::string& reason);
  bool abort_reason_is(const std::string& reason) const;
  /** After each sleep: abort check; on timeouts also liveness of `peers` (nullptr: all ranks). */
  void on_wait(bool timed_out, const std::vector<int>* peers);

  std::unique_ptr<ShmSegment> seg_;
  int rank_, world_;
  std::mutex comm_mu_;  // one communication op at a time per rank, in ticket order
  std::condition_variable turn_changed_;
  uint64_t admitted_ = 0;     // JS thread: tickets handed out (ticket n is admitted_ after the n-th)
  uint64_t served_ = 0;       // under comm_mu_: tickets done, whether their op succeeded or not
  uint32_t parity_ = 0;       // collective double-buffer parity, identical on every rank
  uint64_t coll_seq_ = 0;     // collectives run so far
  const char* current_ = "";  // op being run, for messages
  std::atomic<bool> closed_{false};
};

}  // namespace clab
