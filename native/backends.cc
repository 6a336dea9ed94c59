#include "backends.h"

namespace clab {

BackendStatus cpu_backend_status() { return {true, ""}; }

BackendStatus nccl_backend_status() {
  return {false, "the nccl backend is not built into this version of the addon"};
}

}  // namespace clab
