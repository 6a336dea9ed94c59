// Which backends this addon can run here. The cpu backend is always built in; the nccl backend
// needs the CUDA runtime and NCCL (loaded with dlopen, gpu_loader.h) and at least one visible GPU.
#pragma once

#include <string>

namespace clab {

struct BackendStatus {
  bool available;
  std::string reason;  // why not, when !available ("libnccl.so.2: cannot open shared object file: ...")
  int devices = 0;     // GPUs visible to CUDA (nccl)
};

BackendStatus cpu_backend_status();
BackendStatus nccl_backend_status();

}  // namespace clab
