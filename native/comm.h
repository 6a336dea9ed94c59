// One rank of a communicator, whatever the backend (cpu_comm.h, nccl_comm.h): what the binding
// (binding.cc) drives from its stream threads. No Node-API here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "op.h"
#include "stream.h"

namespace clab {

class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int world() const = 0;

  /**
   * Called on the JS thread when `op` is enqueued, in enqueue order; returns a ticket that
   * execute() receives. Backends that must issue communication in the same order on every rank
   * (NCCL) use it to issue ops from several streams in enqueue order.
   */
  virtual uint64_t admit(const Op& op) { return 0; }

  /**
   * Runs `op` `repeat` times back to back on the stream of `ctx`, recording CLOCK_MONOTONIC ns at
   * the start and end of each repetition. Runs on that stream's thread. Throws ClabError.
   */
  virtual void execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, std::vector<uint64_t>& start,
                       std::vector<uint64_t>& end) = 0;

  /**
   * Moves `op`'s input to where the backend computes, ahead of its execute() calls, and keeps its
   * output there until drain(): a compare block then times its operations alone. Backends that
   * compute in host memory (cpu) have nothing to do. Runs on the stream thread of `ctx`.
   */
  virtual void prestage(const Op& op, StreamContext& ctx) {}
  /** Copies the outputs of every prestaged op back to their host buffers and forgets them. */
  virtual void drain(StreamContext& ctx) {}

  /** Makes pending and later ops fail with CLAB_ABORTED (thread-safe, any thread). */
  virtual void abort(const std::string& reason) = 0;
  /** Releases everything; called once no stream thread runs. Idempotent. */
  virtual void close() = 0;
};

}  // namespace clab
