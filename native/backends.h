// Which backends this build of the addon can run. The cpu backend is always built in.
// The nccl backend is the place for a later issue: it is to be loaded at run time with dlopen
// (libnccl.so.2 / libcudart) from its own files, so that this addon never links a GPU library
// and still loads on machines without one.
#pragma once

#include <string>

namespace clab {

struct BackendStatus {
  bool available;
  std::string reason;  // why not, when !available
};

BackendStatus cpu_backend_status();
BackendStatus nccl_backend_status();

}  // namespace clab
