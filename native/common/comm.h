// One rank of a communicator, whatever the backend (cpu_comm.h, nccl_comm.h): what the binding
// (binding.cc) drives from its stream threads. No Node-API here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/op.h"
#include "common/stream.h"

namespace clab {

/** What one execute() measured, in CLOCK_MONOTONIC ns. */
struct Times {
  std::vector<uint64_t> start, end;  // each repetition
  /**
   * Set by the caller: run the repetitions once more as one loop with only a clock reading at its
   * start and end (nccl-tests' way), before the per-repetition loop, and fill loop_start and
   * loop_end. Backends whose per-repetition readings cost nothing on the timed device (cpu reads
   * the host clock between repetitions) ignore it and leave loop_end at 0.
   */
  bool loop_wanted = false;
  /**
   * Set by the caller, with loop_wanted: that loop is captured once in a CUDA graph and one replay
   * of it is timed (nccl-tests' -G): no host launch between its ops. The per-repetition run stays
   * host-launched. Only backends that launches_graphs() take it.
   */
  bool graph_wanted = false;
  uint64_t loop_start = 0, loop_end = 0;
  /**
   * Set by the caller, with loop_wanted, alike on every rank of the op (each rank must issue the op
   * as often as the others): read each repetition's start and end inside that loop (a kernel
   * stamping the GPU's clock before each, 1.3–1.7 µs of GPU time per NCCL op, or where the data
   * kernels are not loaded an event between each two, 3–4.5 µs: only for ops of a millisecond or
   * more, src/worker/iteration-events.ts) instead of running the repetitions a second time. Left set by
   * the backend only where it did so (nccl, no graph, no profiler plug-in loaded: its per-call
   * view comes from the second run).
   */
  bool events_in_loop = false;
  /**
   * The host thread while it issued that loop (nccl): how long issuing took, and the page faults it
   * took, the times it blocked (waited in the kernel: a lock, a fault served late) and the times it
   * was preempted meanwhile. A loop whose GPU time is about its issue time waited for the host
   * (e.g. a page fault stalled behind another thread unmapping memory).
   */
  uint64_t loop_issue_ns = 0;
  uint64_t loop_faults = 0, loop_blocked = 0, loop_preempted = 0;
  /**
   * Set false by the caller where no one reads this run's output (a step's warm-up, and its timed
   * run where a fresh run is checked after it): nccl then neither copies it back nor checks it
   * (a check kernel and two waits for the stream per run). Others ignore it.
   */
  bool output_wanted = true;
  /** Where the backend made the op's data (Op::data): when it filled and when it checked (0: not done). */
  uint64_t data_fill_start = 0, data_fill_end = 0, data_check_start = 0, data_check_end = 0;
  /**
   * nccl, for a single collective: the sequence number NCCL gave each call (per collective type
   * per communicator, as its profiler's events carry it), the loop's calls first; for a send or
   * recv, its number among this communicator's calls of that direction to that peer. Empty elsewhere.
   */
  std::vector<uint64_t> seq;
  /** nccl, for an op with Op::window: the symmetric windows asked of NCCL, and those it gave none for (no symmetric support). */
  uint32_t windows_asked = 0, windows_declined = 0;
};

class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int world() const = 0;

  /**
   * Called on the JS thread when `op` is enqueued on `stream`, in enqueue order; returns a ticket
   * that execute() receives. Backends that must issue communication in the same order on every rank
   * (NCCL) use it to issue ops from several streams in enqueue order. `gemm_follows`: the enqueuer
   * enqueues a GEMM on another stream next, to overlap with this op (NCCL launches it at this op's
   * line-up where the op runs no kernel: nccl/gemm_handoff.h).
   */
  virtual uint64_t admit(const Op& op, int stream, bool gemm_follows) { return 0; }

  /**
   * Runs `op` `repeat` times back to back on the stream of `ctx`, recording CLOCK_MONOTONIC ns at
   * the start and end of each repetition (and, where `times.loop_wanted`, around a loop of them).
   * Runs on that stream's thread. Throws ClabError.
   */
  virtual void execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) = 0;

  /**
   * Moves `op`'s input to where the backend computes, ahead of its execute() calls, and keeps its
   * output there until drain(): a compare block then times its operations alone. Backends that
   * compute in host memory (cpu) have nothing to do. Runs on the stream thread of `ctx`.
   */
  virtual void prestage(const Op& op, StreamContext& ctx) {}
  /** Copies the outputs of every prestaged op back to their host buffers and forgets them. */
  virtual void drain(StreamContext& ctx) {}

  /** Why this communicator cannot fill and check an op's data itself (Op::data), or "" when it can. */
  virtual std::string data_unavailable() const { return ""; }

  /** Whether execute() can replay its loop as a CUDA graph (Times::graph_wanted): nccl alone has graphs. */
  virtual bool launches_graphs() const { return false; }

  /** Makes pending and later ops fail with CLAB_ABORTED (thread-safe, any thread). */
  virtual void abort(const std::string& reason) = 0;
  /** Releases everything; called once no stream thread runs. Idempotent. */
  virtual void close() = 0;
};

}  // namespace clab
