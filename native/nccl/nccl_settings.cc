// Communicators with NCCL settings of their own, split from the run's: a compare variant's `nccl`
// (maxCTAs: NCCL on fewer CTAs, and so fewer channels; CTAPolicy zero: no CTA where NCCL can, NCCL
// 2.29, on window-registered buffers), so that variants with different settings run in one
// process, on one time scale.
#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_loader.h"
#include "nccl/nccl_comm.h"

namespace clab {

namespace {

constexpr int kSplitSince = 21800;       // ncclCommSplit with a config
constexpr int kZeroPolicySince = 22900;  // NCCL_CTA_POLICY_ZERO taken by send/recv and collectives

}  // namespace

int comm_setting_needs(const CommSetting& setting) {
  return setting.cta_policy == gpu::kNcclCtaPolicyZero ? kZeroPolicySince : kSplitSince;
}

void NcclComm::split(const std::vector<CommSetting>& settings) {
  for (const CommSetting& setting : settings) {
    Split s;
    s.setting = setting;
    const int needs = comm_setting_needs(setting);
    if (nccl_version_ < needs || !nccl_->ncclCommSplit) {
      s.refused = std::string(setting.cta_policy == gpu::kNcclCtaPolicyZero ? "NCCL's zero-SM policy (CTAPolicy zero)"
                                                                            : "NCCL settings per variant (ncclCommSplit)") +
                  " needs NCCL " + gpu::nccl_version_text(needs) + " or later; this rank loaded NCCL " +
                  gpu::nccl_version_text(nccl_version_);
      splits_.push_back(std::move(s));
      continue;
    }
    gpu::ncclConfig_t config{};
    config.size = sizeof config;
    config.magic = gpu::kNcclApiMagic;
    config.version = gpu::kNcclConfigVersion;
    config.blocking = config.cgaClusterSize = config.minCTAs = config.splitShare = config.trafficClass = config.collnetEnable =
        gpu::kNcclConfigUndefInt;
    config.maxCTAs = setting.max_ctas > 0 ? setting.max_ctas : gpu::kNcclConfigUndefInt;
    config.CTAPolicy = setting.cta_policy >= 0 ? setting.cta_policy : gpu::kNcclConfigUndefInt;
    // Every rank splits at join, in the same order: color 0 keeps them all, key orders them as now.
    nccl_check(*nccl_, nccl_->ncclCommSplit(comm_, 0, rank_, &s.comm, &config), "ncclCommSplit (a variant's NCCL settings)", rank_, comm_);
    splits_.push_back(std::move(s));
  }
}

gpu::ncclComm_t NcclComm::communicator(int index) const {
  if (index <= 0) return comm_;
  if (static_cast<size_t>(index) > splits_.size())
    throw_invalid("op.comm " + std::to_string(index) + " names no communicator (this rank has " + std::to_string(splits_.size()) +
                  " with settings of their own)");
  const Split& s = splits_[index - 1];
  if (!s.comm) throw ClabError("CLAB_UNSUPPORTED", s.refused);
  return s.comm;
}

void NcclComm::register_windows(const Op& op, const Staged& b) {
  if (op.comm <= 0 || static_cast<size_t>(op.comm) > splits_.size()) return;
  Split& s = splits_[op.comm - 1];
  if (s.setting.cta_policy != gpu::kNcclCtaPolicyZero || !s.comm || !nccl_->ncclCommWindowRegister) return;
  for (gpu::ncclWindow_t w : s.windows) nccl(nccl_->ncclCommWindowDeregister(s.comm, w), "ncclCommWindowDeregister");
  s.windows.clear();
  auto add = [&](uint8_t* ptr, uint64_t bytes) {
    if (!ptr || !bytes) return;
    gpu::ncclWindow_t w = nullptr;
    nccl(nccl_->ncclCommWindowRegister(s.comm, ptr, bytes, &w, gpu::kNcclWinCollSymmetric), "ncclCommWindowRegister");
    s.windows.push_back(w);
  };
  auto each = [&](const Op& o, const Staged& sb) {
    uint64_t send = 0, recv = 0;
    op_buffer_bytes(o, rank_, world_, &send, &recv);
    add(sb.send, send);
    if (sb.recv != sb.send) add(sb.recv, recv);
  };
  if (op.kind == OpKind::Group) {
    for (size_t i = 0; i < op.ops.size(); i++) each(op.ops[i], b.children[i]);
  } else {
    each(op, b);
  }
}

}  // namespace clab
