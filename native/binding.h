// The binding's shared pieces (binding.cc: module functions; binding_comm.cc: the communicator
// object). These two files are the only ones that include napi.h.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "comm.h"

namespace clab::binding {

Napi::Error make_error(Napi::Env env, const std::string& code, const std::string& message, int rank);
/** An integer in [min, max] or CLAB_INVALID_ARGUMENT naming `field`. */
int64_t get_int(const Napi::Value& v, const std::string& field, int64_t min, int64_t max);
std::string get_string(const Napi::Value& v, const std::string& field);
/** A value as a message shows it: 'text', 3, undefined, an object, … */
std::string show(const Napi::Value& v);

/** What a factory hands to the communicator class's constructor (through a Napi::External). */
struct NewComm {
  std::shared_ptr<Comm> comm;
  int device = -1;     // nccl: the GPU
  std::string bus_id;  // nccl: its PCI bus id
  int compute_capability = -1;  // nccl: major × 10 + minor (9.0 → 90), -1 unknown
};

/** The JS class behind NativeComm (enqueue, prestage, drain, abort, destroy); construct it with an External<NewComm>. */
Napi::Function define_comm_class(Napi::Env env);

}  // namespace clab::binding
