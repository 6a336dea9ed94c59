// What the tuner plug-in (tuner_plugin.cc) shares with the profiler's entry points in the same library.
#pragma once

#include "profiler/profile_record.h"
#include "profiler/profile_ring.h"

namespace clab {

Ring<TunerRecord>& tuner_ring();
uint64_t tuner_calls();
int tuner_interface();
/** While paused, getCollInfo records nothing (NCCL still calls it). */
void set_tuner_paused(bool paused);

}  // namespace clab
