// Reads what the lab's NCCL profiler plug-in (profiler/, clab_profiler.so) kept. The addon opens
// the library NCCL was told to load (NCCL_PROFILER_PLUGIN, a full path): dlopen of the same path
// gives the same copy, so both see one ring. No Node-API here.
#pragma once

#include <string>
#include <vector>

#include "profiler/profile_record.h"

namespace clab::gpu {

class ProfilerReader {
 public:
  /** The reader of the plug-in at `path`, opened once per process; nullptr with *why where it cannot be. */
  static const ProfilerReader* open(const std::string& path, std::string* why);

  /** Every record kept since the last drain, oldest first. */
  std::vector<ProfileRecord> drain() const;
  /** Every tuner call recorded since the last drain_tuner, oldest first. */
  std::vector<TunerRecord> drain_tuner() const;
  ProfileStats stats() const;
  /** No events and no tuner records (paused) for the operations NCCL enqueues from now on, or again all (process-wide). */
  void pause(bool paused) const { pause_(paused ? 1 : 0); }

  /** The reader opened last in this process, or nullptr: the one whose plug-in NCCL was given. */
  static const ProfilerReader* active();

 private:
  clab_profiler_drain_fn drain_ = nullptr;
  clab_profiler_stats_fn stats_ = nullptr;
  clab_profiler_pause_fn pause_ = nullptr;
  clab_tuner_drain_fn drain_tuner_ = nullptr;
};

}  // namespace clab::gpu
