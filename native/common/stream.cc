#include "common/stream.h"

namespace clab {

bool StreamPool::submit(int stream, StreamTask task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || stream < 0 || stream >= kMaxStreams) return false;
  std::unique_ptr<Stream>& s = streams_[stream];
  if (!s) {
    s = std::make_unique<Stream>();
    s->ctx.index = stream;
    s->thread = std::thread(loop, s.get());
  }
  {
    std::lock_guard<std::mutex> slock(s->mu);
    s->queue.push_back(std::move(task));
  }
  s->cv.notify_one();
  return true;
}

void StreamPool::loop(Stream* s) {
  for (;;) {
    StreamTask task;
    {
      std::unique_lock<std::mutex> lock(s->mu);
      s->cv.wait(lock, [s] { return s->stopping || !s->queue.empty(); });
      if (s->queue.empty()) return;  // stopping and drained
      task = std::move(s->queue.front());
      s->queue.pop_front();
    }
    task(s->ctx);
  }
}

void StreamPool::shutdown() {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return;
  closed_ = true;
  lock.unlock();
  for (auto& s : streams_) {
    if (!s) continue;
    {
      std::lock_guard<std::mutex> slock(s->mu);
      s->stopping = true;
    }
    s->cv.notify_all();
  }
  for (auto& s : streams_)
    if (s && s->thread.joinable()) s->thread.join();
}

}  // namespace clab
