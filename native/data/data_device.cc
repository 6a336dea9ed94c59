#include "data/data_device.h"

#include <map>
#include <memory>
#include <mutex>

#include "common/errors.h"

namespace clab {

/** data_kernels.cu as PTX (the generated data_ptx.cc): empty when the addon was built with -DCLAB_DATA_KERNELS=OFF. */
extern const char kDataKernelsPtx[];

bool data_kernels_built_in() { return kDataKernelsPtx[0] != '\0'; }

const DataKernels* DataKernels::on_device(int device, std::string* why) {
  static std::mutex mu;
  static std::map<int, std::pair<std::unique_ptr<DataKernels>, std::string>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(device);
  if (it == loaded.end()) {
    auto k = std::make_unique<DataKernels>();
    std::string reason;
    gpu::CUmodule module = nullptr;
    gpu::CUresult r = gpu::CUDA_SUCCESS;
    if (kDataKernelsPtx[0] == '\0') {
      reason = "this addon was built without the data kernels (-DCLAB_DATA_KERNELS=OFF): data is made and checked on the host";
    } else if (!(k->driver_ = gpu::load_cuda_driver(&reason))) {
      reason = "the CUDA driver API cannot be loaded: " + reason;
    } else if ((r = k->driver_->cuModuleLoadData(&module, kDataKernelsPtx)) != gpu::CUDA_SUCCESS) {
      reason = "the driver refused the data kernels' PTX: " + gpu::driver_error_text(*k->driver_, r);
    } else if ((r = k->driver_->cuModuleGetFunction(&k->fill_, module, "clab_fill")) != gpu::CUDA_SUCCESS ||
               (r = k->driver_->cuModuleGetFunction(&k->check_, module, "clab_check")) != gpu::CUDA_SUCCESS ||
               (r = k->driver_->cuModuleGetFunction(&k->fill_f32_, module, "clab_fill_f32")) != gpu::CUDA_SUCCESS ||
               (r = k->driver_->cuModuleGetFunction(&k->check_f32_, module, "clab_check_f32")) != gpu::CUDA_SUCCESS ||
               (r = k->driver_->cuModuleGetFunction(&k->globaltimer_, module, "clab_globaltimer")) != gpu::CUDA_SUCCESS) {
      reason = "the data kernels' PTX lacks a kernel: " + gpu::driver_error_text(*k->driver_, r);
    }
    if (!reason.empty()) k.reset();
    it = loaded.emplace(device, std::make_pair(std::move(k), reason)).first;
  }
  if (!it->second.first) *why = it->second.second;
  return it->second.first.get();
}

void DataKernels::launch(gpu::CUfunction f, gpu::cudaStream_t stream, uint64_t n, void** args, const char* what, int rank) const {
  constexpr unsigned kThreads = 256, kMaxBlocks = 4096;
  const uint64_t wanted = (n + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < kMaxBlocks ? (wanted ? wanted : 1) : kMaxBlocks);
  const gpu::CUresult r = driver_->cuLaunchKernel(f, blocks, 1, 1, kThreads, 1, 1, 0, stream, args, nullptr);
  if (r != gpu::CUDA_SUCCESS)
    throw ClabError(ErrCode::SystemError, std::string("launching the ") + what + " kernel failed on rank " + std::to_string(rank) + ": " +
                                              gpu::driver_error_text(*driver_, r));
}

void DataKernels::fill(gpu::cudaStream_t stream, uint8_t* dst, uint64_t n, const data::Fill& f, int rank) const {
  unsigned long long count = n;
  data::Fill spec = f;
  void* args[] = {&dst, &count, &spec};
  launch(f.dtype == data::kF32 ? fill_f32_ : fill_, stream, n, args, "data fill", rank);
}

void DataKernels::check(gpu::cudaStream_t stream, const uint8_t* out, uint64_t n, const data::Expect& e, data::CheckResult* result,
                        int rank) const {
  unsigned long long count = n;
  data::Expect spec = e;
  void* args[] = {&out, &count, &spec, &result};
  launch(e.dtype == data::kF32 ? check_f32_ : check_, stream, n, args, "data check", rank);
}

void DataKernels::globaltimer(gpu::cudaStream_t stream, unsigned long long* out, int rank) const {
  void* args[] = {&out};
  const gpu::CUresult r = driver_->cuLaunchKernel(globaltimer_, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr);
  if (r != gpu::CUDA_SUCCESS)
    throw ClabError(ErrCode::SystemError,
                    "launching the globaltimer kernel failed on rank " + std::to_string(rank) + ": " + gpu::driver_error_text(*driver_, r));
}

}  // namespace clab
