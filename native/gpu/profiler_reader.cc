#include "gpu/profiler_reader.h"

#include <dlfcn.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

namespace clab::gpu {

namespace {
std::atomic<const ProfilerReader*> g_active{nullptr};
}  // namespace

const ProfilerReader* ProfilerReader::active() { return g_active.load(); }

const ProfilerReader* ProfilerReader::open(const std::string& path, std::string* why) {
  static std::mutex mu;
  static std::map<std::string, std::pair<std::unique_ptr<ProfilerReader>, std::string>> opened;
  std::lock_guard<std::mutex> lock(mu);
  auto it = opened.find(path);
  if (it == opened.end()) {
    auto reader = std::make_unique<ProfilerReader>();
    std::string reason;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      reason = e ? e : "dlopen failed";
    } else {
      reader->drain_ = reinterpret_cast<clab_profiler_drain_fn>(dlsym(h, "clab_profiler_drain"));
      reader->stats_ = reinterpret_cast<clab_profiler_stats_fn>(dlsym(h, "clab_profiler_stats"));
      reader->pause_ = reinterpret_cast<clab_profiler_pause_fn>(dlsym(h, "clab_profiler_pause"));
      reader->drain_tuner_ = reinterpret_cast<clab_tuner_drain_fn>(dlsym(h, "clab_tuner_drain"));
      ProfileStats s{};
      if (!reader->drain_ || !reader->stats_ || !reader->pause_ || !reader->drain_tuner_) {
        reason = path + " is not the lab's profiler plug-in (no clab_profiler_drain)";
      } else if (reader->stats_(&s), s.version != kProfileRecordVersion || s.record_size != sizeof(ProfileRecord)) {
        reason = path + " keeps records of version " + std::to_string(s.version) + ", this addon reads version " +
                 std::to_string(kProfileRecordVersion);
      }
    }
    if (!reason.empty()) reader.reset();
    it = opened.emplace(path, std::make_pair(std::move(reader), reason)).first;
  }
  if (!it->second.first) *why = it->second.second;
  else
    g_active.store(it->second.first.get());
  return it->second.first.get();
}

namespace {
template <class Record, class Drain>
std::vector<Record> drain_all(Drain drain) {
  std::vector<Record> out;
  constexpr uint32_t kBatch = 4096;
  for (;;) {
    const size_t n = out.size();
    out.resize(n + kBatch);
    const uint32_t got = drain(out.data() + n, kBatch);
    out.resize(n + got);
    if (got < kBatch) return out;
  }
}
}  // namespace

std::vector<ProfileRecord> ProfilerReader::drain() const { return drain_all<ProfileRecord>(drain_); }

std::vector<TunerRecord> ProfilerReader::drain_tuner() const { return drain_all<TunerRecord>(drain_tuner_); }

ProfileStats ProfilerReader::stats() const {
  ProfileStats s{};
  stats_(&s);
  return s;
}

}  // namespace clab::gpu
