// Communicators with NCCL settings of their own, split from the run's: a compare variant's `nccl`
// or a sweep's `ctaPolicy` (maxCTAs: NCCL on fewer CTAs, and so fewer channels; CTAPolicy
// efficiency, 2.27; zero: no CTA where NCCL can, 2.29, on window-registered buffers), so that
// settings run side by side in one process, on one time scale; and the steps whose buffers are
// symmetric windows (Op::window: NCCL numbers neither its symmetric nor its copy-engine calls, which
// would leave the run's communicator's numbers behind the addon's).
#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_loader.h"
#include "nccl/nccl_comm.h"

namespace clab {

namespace {

constexpr int kSplitSince = 21800;       // ncclCommSplit with a config
constexpr int kCtaPolicySince = 22700;   // ncclConfig_t.CTAPolicy
constexpr int kZeroPolicySince = 22900;  // NCCL_CTA_POLICY_ZERO taken by send/recv and collectives

}  // namespace

int comm_setting_needs(const CommSetting& setting) {
  if (setting.cta_policy == gpu::kNcclCtaPolicyZero) return kZeroPolicySince;
  return setting.cta_policy >= 0 ? kCtaPolicySince : kSplitSince;
}

void NcclComm::split(const std::vector<CommSetting>& settings) {
  for (const CommSetting& setting : settings) {
    Split s;
    s.setting = setting;
    const int needs = comm_setting_needs(setting);
    if (nccl_version_ < needs || !nccl_->ncclCommSplit) {
      s.refused = std::string(setting.cta_policy == gpu::kNcclCtaPolicyZero ? "NCCL's zero-SM policy (CTAPolicy zero)"
                              : setting.cta_policy >= 0                     ? "NCCL's CTA policies (ncclConfig_t.CTAPolicy)"
                                                                            : "NCCL settings of their own (ncclCommSplit)") +
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

bool NcclComm::windowed(const Op& op) const {
  if (op.window) return true;
  if (op.comm <= 0 || static_cast<size_t>(op.comm) > splits_.size()) return false;
  return splits_[op.comm - 1].setting.cta_policy == gpu::kNcclCtaPolicyZero;
}

void NcclComm::register_windows(const Op& op, const Staged& b, Times& times) {
  if (!windowed(op)) return;
  if (!nccl_->ncclCommWindowRegister || !nccl_->ncclCommWindowDeregister)
    throw ClabError("CLAB_UNSUPPORTED",
                    "symmetric windows need NCCL 2.27 or later (ncclCommWindowRegister); " + nccl_->library + " has not got it");
  const gpu::ncclComm_t c = communicator(op.comm);
  std::vector<gpu::ncclWindow_t>& windows = op.comm > 0 ? splits_[op.comm - 1].windows : windows_;
  for (gpu::ncclWindow_t w : windows) nccl(nccl_->ncclCommWindowDeregister(c, w), "ncclCommWindowDeregister");
  windows.clear();
  auto add = [&](uint8_t* ptr, uint64_t bytes) {
    if (!ptr || !bytes) return;
    gpu::ncclWindow_t w = nullptr;
    nccl(nccl_->ncclCommWindowRegister(c, ptr, bytes, &w, gpu::kNcclWinCollSymmetric), "ncclCommWindowRegister");
    times.windows_asked++;
    // A communicator without symmetric support (not every GPU reached by CUDA P2P, no cuMem,
    // NCCL_WIN_ENABLE=0) returns success and no window.
    if (w) windows.push_back(w);
    else
      times.windows_declined++;
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
