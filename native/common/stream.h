// Streams: one worker thread per stream, created on first use, running its tasks in issue order.
// Different streams run concurrently. No Node-API here.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/gemm.h"

namespace clab {

constexpr int kMaxStreams = 8;

/** What a task may use that belongs to its stream. */
struct StreamContext {
  int index = 0;
  GemmWorkspace gemm;
};

using StreamTask = std::function<void(StreamContext&)>;

class StreamPool {
 public:
  StreamPool() = default;
  ~StreamPool() { shutdown(); }
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  /** Queues `task` on `stream` (0..kMaxStreams-1). False after shutdown. */
  bool submit(int stream, StreamTask task);
  /** Lets every queued task run, then joins the threads. Idempotent. */
  void shutdown();

 private:
  struct Stream {
    std::thread thread;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<StreamTask> queue;
    bool stopping = false;
    StreamContext ctx;
  };
  static void loop(Stream* s);

  std::mutex mu_;  // guards streams_ and closed_
  std::unique_ptr<Stream> streams_[kMaxStreams];
  bool closed_ = false;
};

}  // namespace clab
