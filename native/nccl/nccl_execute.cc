// Running an op: its repetitions timed between CUDA events and mapped onto the host clock
// (nccl-tests' one loop on request), the data kernels' fill and check marked around it, and the
// GEMM's wait for the communication enqueued before it.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/errors.h"
#include "data/data_host.h"
#include "gpu/gpu_errors.h"
#include "gpu/graph_loop.h"
#include "gpu/profiler_reader.h"
#include "nccl/nccl_comm.h"

namespace clab {

namespace {

constexpr int kBatch = 1024;  // repetitions timed per batch of events

/** The lab's NCCL plug-ins paused for a scope (where the addon loaded them), and sends and receives uncounted. */
struct PluginsPaused {
  std::atomic<int>& unprofiled;
  const gpu::ProfilerReader* profiler = gpu::ProfilerReader::active();
  explicit PluginsPaused(std::atomic<int>& u) : unprofiled(u) {
    if (!profiler) return;
    unprofiled++;
    profiler->pause(true);
  }
  ~PluginsPaused() {
    if (!profiler) return;
    profiler->pause(false);
    unprofiled--;
  }
  PluginsPaused(const PluginsPaused&) = delete;
  PluginsPaused& operator=(const PluginsPaused&) = delete;
};

/**
 * CLAB_TRACE_JOBS=1: a line per communication op on stderr (the rank's log) with where its host time
 * went, for finding the gaps between a step's phases. Marks: entered, staged, reference taken, turn,
 * lined up, loop issued, repetitions issued, waited, copied back.
 */
struct JobClock {
  static bool on() {
    static const bool v = [] {
      const char* e = std::getenv("CLAB_TRACE_JOBS");
      return e && e[0] == '1';
    }();
    return v;
  }
  static constexpr int kMarks = 9;
  uint64_t t[kMarks] = {};
  void mark(int i) {
    if (on()) t[i] = now_ns();
  }
};
thread_local JobClock job_clock;

}  // namespace

uint64_t NcclComm::reference(StreamState& st) {
  cuda_check(*rt_, rt_->cudaEventRecord(st.staged, st.stream), "cudaEventRecord", rank_);
  wait_event(st.staged, false);  // the stream is idle from here on
  cuda_check(*rt_, rt_->cudaEventRecord(st.reference, st.stream), "cudaEventRecord", rank_);
  wait_event(st.reference, true);
  st.t_ref = now_ns();
  return st.t_ref;
}

uint64_t NcclComm::clock_of(StreamState& st, gpu::cudaEvent_t ev) {
  float ms = 0;
  cuda_check(*rt_, rt_->cudaEventElapsedTime(&ms, st.reference, ev), "cudaEventElapsedTime", rank_);
  return static_cast<uint64_t>(static_cast<double>(st.t_ref) + static_cast<double>(ms) * 1e6);
}

void NcclComm::ensure_marks(StreamState& st, size_t n) {
  while (st.marks.size() < n) {
    gpu::cudaEvent_t ev;
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&ev, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
    st.marks.push_back(ev);
  }
}

void NcclComm::data_mark(StreamState& st, int i) {
  if (!st.data_marks[i])
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st.data_marks[i], gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventRecord(st.data_marks[i], st.stream), "cudaEventRecord", rank_);
}

template <class F>
void NcclComm::timed(StreamState& st, int repeat, uint64_t ticket, F enqueue_one, Times& times, const std::function<void()>& align_first,
                     bool spin) {
  std::vector<uint64_t>& start = times.start;
  std::vector<uint64_t>& end = times.end;
  const uint64_t t_ref = reference(st);
  job_clock.mark(2);
  // The profiler plug-in's view of each call comes from the repetitions run one by one; a graph's
  // loop is one launch; a loop of more than one batch of events keeps the second run. Each alike on
  // every rank (the plug-in loads on every rank or none), as they must issue the op alike.
  const bool in_loop =
      times.loop_wanted && times.events_in_loop && !times.graph_wanted && !gpu::ProfilerReader::active() && repeat <= kBatch;
  // In the loop, where the data kernels are loaded: an event pair around it, and a one-thread
  // kernel stamping the GPU's clock (%globaltimer) before each repetition, which costs the GPU
  // 1.3–1.7 µs per NCCL op against 3.0–3.5 µs for an event (all_reduce 4 MiB … 256 MiB, 2 × H200,
  // NCCL 2.28.3, 2026-11-28); else an event before the first repetition and one after each.
  const bool stamped = in_loop && kernels_ != nullptr;
  if (stamped && !st.stamps.get()) st.stamps = memory_->acquire(kBatch * sizeof(uint64_t), "the loop's clock stamps");
  auto* stamps = stamped ? reinterpret_cast<unsigned long long*>(st.stamps.get()) : nullptr;
  const size_t marks = stamped ? 2 : in_loop ? static_cast<size_t>(repeat) + 1 : 2 * static_cast<size_t>(std::min(repeat, kBatch));
  ensure_marks(st, marks);
  auto since_ref = [&](gpu::cudaEvent_t ev) {
    float ms = 0;
    cuda_check(*rt_, rt_->cudaEventElapsedTime(&ms, st.reference, ev), "cudaEventElapsedTime", rank_);
    return t_ref + static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
  };
  auto collect = [&](int n) {
    if (stamped) {
      // Each repetition from its stamp to the next one's, on the events' clock from the first
      // stamp (read just after the loop's first event); the last one ends at the loop's end.
      // Into pageable memory, so the copy has completed when the call returns (CUDA's rule for a
      // device-to-pageable cudaMemcpyAsync), behind the loop on its stream.
      std::vector<uint64_t> gpu(static_cast<size_t>(n));
      cuda_check(*rt_, rt_->cudaMemcpyAsync(gpu.data(), stamps, gpu.size() * sizeof(uint64_t), gpu::cudaMemcpyDeviceToHost, st.stream),
                 "cudaMemcpyAsync (the loop's clock stamps)", rank_);
      const uint64_t first = since_ref(st.marks[0]), last_end = since_ref(st.marks[1]);
      uint64_t before = first;
      for (int i = 0; i < n; i++) {
        const uint64_t next = i + 1 < n ? first + (gpu[i + 1] - gpu[0]) : last_end;
        start.push_back(before);
        end.push_back(before = std::clamp(next, before, last_end));
      }
      return;
    }
    if (in_loop) {
      uint64_t before = since_ref(st.marks[0]);
      for (int i = 0; i < n; i++) {
        start.push_back(before);
        end.push_back(before = since_ref(st.marks[i + 1]));
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      start.push_back(since_ref(st.marks[2 * i]));
      end.push_back(since_ref(st.marks[2 * i + 1]));
    }
  };
  // The event that ends a batch's last repetition.
  const auto last_mark = [&](int n) { return stamped ? st.marks[1] : in_loop ? st.marks[n] : st.marks[2 * n - 1]; };
  const bool ordered = ticket != kNoTicket;
  if (ordered) wait_turn(ticket);
  job_clock.mark(3);
  int last = 0;
  // Kept to the end: its replay is then long done (CUDA would free it after the replay anyway).
  std::optional<gpu::GraphLoop> graph;
  try {
    // A job of more than one batch keeps its turn throughout, so no rank interleaves another job.
    for (int done = 0; done < repeat; done += last) {
      if (done > 0) {
        wait_event(last_mark(last), false);
        collect(last);
      }
      last = std::min(repeat - done, kBatch);
      in_nccl_++;
      struct Leave {
        std::atomic<int>& n;
        ~Leave() { n--; }
      } leave{in_nccl_};
      if (done == 0 && times.loop_wanted) {
        // The lab's NCCL plug-ins are paused while the ranks line up and the loop is issued: their
        // events (kernel channels above all, which make NCCL add proxy work that its proxy thread
        // then polls for) would be in its time. The per-repetition run below gives them.
        PluginsPaused paused(unprofiled_);
        // Graph launch (nccl-tests' -G): the loop's `repeat` calls captured (nothing runs yet),
        // instantiated and replayed once untimed before the ranks line up, so that none of it,
        // whose host time differs from rank to rank, parts them again between the line-up and the
        // loop. The first replay of a new graph pays for its upload to the GPU and NCCL's first
        // use of what the capture set up, which nccl-tests spreads over its -G replays: all
        // untimed, all_reduce 8 B … 512 KiB read 1.13 × nccl-tests -G 20's time per op, with the
        // upload alone 1.06 ×, with the replay 1.02 × (paired medians, 2 × H200, NCCL 2.28.3). Then
        // one replay of all `repeat` is timed: as many ops as the host-launched loop, one launch.
        // The graph records the loop's event pair itself, around its first and last op: timed from
        // the host's two records around the launch instead, the replay carried the launch's own
        // latency (some 2 µs, one launch per 20 ops where nccl-tests -G 20 has one per 400), and
        // read 1.012–1.018 × nccl-tests -G's time per op (paired medians below 1 MiB, 6 repeats,
        // 4 × H200, NCCL 2.28.3 and 2.30.7, 2026-11-27; A/A 0.997–1.004).
        if (times.graph_wanted) {
          graph.emplace(*rt_, st.stream, rank_);
          graph->capture(repeat, enqueue_one, st.loop_begin, st.loop_end);
          graph->launch();
        }
        if (align_first) align_first();
        job_clock.mark(4);
        // nccl-tests' loop: nothing between the repetitions, one event pair around them all.
        // The host's side of it too: a loop the GPU spent waiting for its calls is not the op's time.
        struct rusage before {
        }, after{};
        getrusage(RUSAGE_THREAD, &before);
        const uint64_t issue0 = now_ns();
        if (graph) {
          graph->launch();  // records loop_begin and loop_end itself
        } else if (stamped) {
          cuda_check(*rt_, rt_->cudaEventRecord(st.marks[0], st.stream), "cudaEventRecord", rank_);
          for (int i = 0; i < repeat; i++) {
            kernels_->globaltimer(st.stream, stamps + i, rank_);
            enqueue_one();
          }
          cuda_check(*rt_, rt_->cudaEventRecord(st.marks[1], st.stream), "cudaEventRecord", rank_);
        } else if (in_loop) {
          cuda_check(*rt_, rt_->cudaEventRecord(st.marks[0], st.stream), "cudaEventRecord", rank_);
          for (int i = 0; i < repeat; i++) {
            enqueue_one();
            cuda_check(*rt_, rt_->cudaEventRecord(st.marks[i + 1], st.stream), "cudaEventRecord", rank_);
          }
        } else {
          cuda_check(*rt_, rt_->cudaEventRecord(st.loop_begin, st.stream), "cudaEventRecord", rank_);
          for (int i = 0; i < repeat; i++) enqueue_one();
          cuda_check(*rt_, rt_->cudaEventRecord(st.loop_end, st.stream), "cudaEventRecord", rank_);
        }
        times.loop_issue_ns = now_ns() - issue0;
        job_clock.mark(5);
        getrusage(RUSAGE_THREAD, &after);
        times.loop_faults = static_cast<uint64_t>((after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt));
        times.loop_blocked = static_cast<uint64_t>(after.ru_nvcsw - before.ru_nvcsw);
        times.loop_preempted = static_cast<uint64_t>(after.ru_nivcsw - before.ru_nivcsw);
      } else if (done == 0 && align_first) {
        align_first();
        job_clock.mark(4);
      }
      for (int i = 0; i < last && !in_loop; i++) {
        cuda_check(*rt_, rt_->cudaEventRecord(st.marks[2 * i], st.stream), "cudaEventRecord", rank_);
        enqueue_one();
        cuda_check(*rt_, rt_->cudaEventRecord(st.marks[2 * i + 1], st.stream), "cudaEventRecord", rank_);
      }
    }
  } catch (const ClabError& e) {
    // A refusal that every rank of the op made alike while lining up (a copy engine without peer
    // access): none issued it, and the communicator goes on. Anything else: the other ranks may
    // now wait for an op this rank never issued, so nothing later may run.
    if (ordered && std::string(e.code_name()) == "CLAB_UNSUPPORTED") end_turn();
    else if (ordered)
      abort(e.what());
    throw;
  }
  if (ordered) end_turn();
  job_clock.mark(6);
  wait_event(last_mark(last), spin);
  collect(last);
  job_clock.mark(7);
  times.events_in_loop = in_loop;
  if (in_loop) {
    times.loop_start = start.front();
    times.loop_end = end.back();
  } else if (times.loop_wanted) {
    times.loop_start = since_ref(st.loop_begin);
    times.loop_end = since_ref(st.loop_end);
  }
}

void NcclComm::execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) {
  times.start.clear();
  times.end.clear();
  check_usable();
  use_device();
  StreamState& st = stream_state(ctx.index);
  job_clock = JobClock{};
  job_clock.mark(0);
  if (op.kind == OpKind::Gemm) execute_gemm(op, repeat, ticket, ctx.index, st, times);
  else
    execute_communication(op, repeat, ticket, st, times);
}

void NcclComm::execute_gemm(const Op& op, int repeat, uint64_t ticket, int stream_index, StreamState& st, Times& times) {
  const uint64_t g0 = now_ns();
  const bool fresh = !st.gemm;
  if (!st.gemm) st.gemm = std::make_unique<GpuGemm>(*rt_, *memory_, st.stream, rank_);
  const uint64_t g1 = now_ns();
  st.gemm->prepare(op.dtype, op.m, op.n, op.k);
  if (fresh && tracing())
    std::fprintf(stderr, "[trace] rank %d gemm on stream %d: cuBLAS handle %.1f ms, operands %.1f ms\n", rank_, stream_index,
                 (g1 - g0) / 1e6, (now_ns() - g1) / 1e6);
  // Launched after the communication enqueued before it has been issued, as one host thread
  // issuing in plan order would, and once that communication has lined its ranks up on the GPU:
  // a late peer would otherwise hold the receive back while the GEMM ran alone and took every
  // SM, and its lag (kept out of every communication's own time) would count against the
  // overlap. The host polls for the line-up and then launches, so the GEMM starts a few µs after
  // the receive; a GPU-side wait (cudaStreamWaitEvent) released both at once, and the GEMM took
  // the SMs first in about half the repeats (the receive then ran ~1.5× slower).
  // A receive that runs no kernel (a copy engine's, ended by memory operations) takes no SM: the
  // GEMM is released at its line-up, without waiting for its issue (wait_before_gemm).
  // A GEMM of one repetition behind a transfer that runs no kernel and hands it off is launched by
  // that transfer's thread as its ranks line up (gemm_handoff.h; CLAB_GEMM_RELEASE, nccl_order.cc).
  st.gemm->target_sms(op.sm_count);
  std::function<void()> after_comm;
  if (ticket != kNoTicket && (ticket & kAfterComm)) {
    const uint64_t before = ticket & ~kAfterComm;
    if (before > 0 && repeat == 1 && !times.loop_wanted && gemm_handed_off(before - 1, st, times)) return;
    after_comm = [this, before, &st] { wait_before_gemm(before, st.stream); };
  }
  timed(
      st, repeat, kNoTicket, [&] { st.gemm->issue(); }, times, after_comm, false);
}

NcclComm::Staging* NcclComm::prestaged(const Op& op) {
  std::lock_guard<std::mutex> lock(ahead_mu_);
  auto it = ahead_.find(staging_key(op));
  return it != ahead_.end() ? it->second.get() : nullptr;  // stays until drain(), which copies the output back
}

void NcclComm::stage_marked(const Op& op, Staging& own, StreamState& st, bool data) {
  try {
    if (data) data_mark(st, 0);
    stage(op, own.root, own, st.stream);
    if (data) data_mark(st, 1);
  } catch (const ClabError& e) {
    abort(e.what());  // this rank will not issue the op its peers wait in
    throw;
  }
}

void NcclComm::copy_back_marked(const Staging& own, StreamState& st, bool data) {
  if (data) data_mark(st, 2);
  copy_back(own, st.stream);
  if (data) data_mark(st, 3);
}

const Op* NcclComm::numbered_p2p(const Op& op, bool copies) const {
  const auto is_p2p = [](const Op& o) { return o.comm == 0 && (o.kind == OpKind::Send || o.kind == OpKind::Recv); };
  // A lone copy-engine send or receive calls NCCL only for its one-byte end, and not at all where
  // stream memory operations end it.
  if (is_p2p(op)) return copies && copy_memops() ? nullptr : &op;
  if (op.kind == OpKind::Group && !copies)
    for (const Op& child : op.ops)
      if (is_p2p(child)) return &child;
  return nullptr;
}

void NcclComm::execute_communication(const Op& op, int repeat, uint64_t ticket, StreamState& st, Times& times) {
  Staging own;
  Staging* staging = prestaged(op);
  // The data kernels' fill and check are marked on the stream (the timeline shows them), here where
  // an op is staged for itself; a compare block's prestaged ops are made and checked outside its time.
  const bool data = !staging && op_has_data(op);
  if (!staging) stage_marked(op, own, st, data);
  job_clock.mark(1);
  const Staged& bufs = staging ? staging->root : own.root;
  const bool copies = op_has_copy_engine(op);
  CopyTargets targets;  // copy-engine sends: where they land, learnt while lining up
  const bool uses_no_sm = runs_no_kernel(op);
  // A GEMM handed off to this op (gemm_handoff.h) is launched as the ranks line up; one it never took
  // (it failed before that) is declined on the way out, and the GEMM launches itself.
  struct Decline {
    GemmHandoff& handoff;
    uint64_t ticket;
    ~Decline() {
      if (ticket != kNoTicket) handoff.decline(ticket);
    }
  } decline{handoff_, ticket};
  std::function<void()> line_up;
  if (op.kind != OpKind::Barrier && world_ > 1)
    line_up = [&] {
      register_windows(op, bufs, times);
      // Its GEMM made ready before the ranks line up, so that it starts with the transfer.
      if (uses_no_sm && ticket != kNoTicket) handoff_.await_offer(ticket, kHandoffWaitNs, [this] { return aborted_.load(); });
      if (copies) align_copy_engine(op, bufs, st, targets);
      else
        align(op, st.stream);
      if (ticket != kNoTicket) {
        handoff_.line_up(ticket);
        publish_lined_up(ticket, st.stream, uses_no_sm);
      }
    };
  // The numbers NCCL gives this op's calls (the profiler's join), on the run's communicator only.
  // A send or receive is numbered among its direction's calls to its peer.
  const int slot = op.comm == 0 ? seq_slot(op.kind) : -1;
  const Op* lead = numbered_p2p(op, copies);
  times.seq.clear();
  // One number per call and numbered op, for the loop and the run one by one: reserved, so that no
  // call of the loop waits for the vector to grow.
  const size_t per_call = (slot >= 0 ? 1 : 0) + (lead ? 1 : 0);
  if (per_call) times.seq.reserve(per_call * static_cast<size_t>(std::min(repeat, 1 << 20)) * (times.loop_wanted ? 2 : 1));
  auto enqueue_one = [&] {
    if (slot >= 0) times.seq.push_back(seq_[slot].load());
    if (lead) times.seq.push_back(peek_p2p(lead->kind == OpKind::Send, lead->peer));
    if (copies) issue_with_copies(op, bufs, st.stream, targets);
    else
      issue(op, bufs, st.stream);
  };
  // Every rank leaves a barrier as soon as it completes: one that slept through it would start the
  // next op late (a compare block starts with a barrier; its ops would time that rank's lag).
  timed(st, repeat, ticket, enqueue_one, times, line_up, op.kind == OpKind::Barrier);
  const bool output = !staging && times.output_wanted;
  if (output) copy_back_marked(own, st, data);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(st.stream), "cudaStreamSynchronize", rank_);
  if (data) {
    times.data_fill_start = clock_of(st, st.data_marks[0]);
    times.data_fill_end = clock_of(st, st.data_marks[1]);
  }
  if (data && output) {
    times.data_check_start = clock_of(st, st.data_marks[2]);
    times.data_check_end = clock_of(st, st.data_marks[3]);
  }
  if (JobClock::on()) {
    job_clock.mark(8);
    static const char* const kNames[JobClock::kMarks] = {"", "staged", "ref", "turn", "lined", "loop", "reps", "waited", "copied"};
    std::string line;
    uint64_t before = job_clock.t[0];
    for (int i = 1; i < JobClock::kMarks; i++) {
      if (!job_clock.t[i]) continue;
      line += " " + std::string(kNames[i]) + " " + std::to_string((job_clock.t[i] - before) / 1000);
      before = job_clock.t[i];
    }
    std::fprintf(stderr, "[job] rank %d %s x%d%s at %llu:%s us\n", rank_, op_kind_name(op.kind), repeat, times.loop_wanted ? " loop" : "",
                 static_cast<unsigned long long>(job_clock.t[0]), line.c_str());
  }
}

}  // namespace clab
