// Data made and checked in host memory (data_host.cc): where the environment puts data, and
// data_program.h's fill and check over host buffers, for the cpu backend, the nccl backend's host
// path and the tests. No Node-API.
#pragma once

#include <cstdint>
#include <string>

#include "common/op.h"

namespace clab {

/**
 * Where the environment puts data (CLAB_DATA): "host" (the rank process, in JS), "backend", or ""
 * for the backend's own default (nccl: its kernels; cpu: the host).
 */
std::string data_place_from_env();

/** Host memory (the cpu backend, and the tests): fills `n` elements of `dst`. */
void fill_host(uint8_t* dst, uint64_t n, const data::Fill& fill);
/** Host memory: checks `n` elements of `out` against `expect`. */
data::CheckResult check_host(const uint8_t* out, uint64_t n, const data::Expect& expect);

/**
 * Host-memory backends (cpu), for `op` and each group member that has data: poisons recv (0xff, as
 * the host path does) and fills send before the op; checks recv after it, writing the result.
 */
void fill_host_data(const Op& op, int rank, int world);
/** Whether `op`, or a member of it, has data (Op::data). */
bool op_has_data(const Op& op);
void check_host_data(const Op& op, int rank, int world);

}  // namespace clab
