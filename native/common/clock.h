// The clock every timing uses: CLOCK_MONOTONIC in ns, the clock of process.hrtime.
#pragma once

#include <cstdint>

namespace clab {

uint64_t now_ns();

}  // namespace clab
