#include "cpu/shm_segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>

#include "common/errors.h"

namespace clab {

namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

uint64_t random64() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
    std::random_device rd;
    v = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(now_ns());
  }
  return v;
}

struct Layout {
  uint64_t ranks_offset, coll_offset, mbox_offset, total;
};

Layout layout_for(uint32_t world, uint64_t slot_bytes, uint64_t mailbox_bytes) {
  Layout l;
  l.ranks_offset = align_up(sizeof(SegHeader), 4096);
  l.coll_offset = align_up(l.ranks_offset + sizeof(RankInfo) * world, 4096);
  l.mbox_offset = align_up(l.coll_offset + 2 * (world + 1) * slot_bytes, 4096);
  l.total = align_up(l.mbox_offset + static_cast<uint64_t>(world) * world * (sizeof(MboxCtl) + mailbox_bytes), 4096);
  return l;
}

/**
 * Unlinks the names of segments whose creating process is gone (the pid in "clab-<pid>-<hex>"):
 * what a run killed before every rank attached (and before any destroy()) left behind. A
 * mapping still in use is not affected; only the name goes.
 */
void remove_orphans() {
  DIR* dir = opendir("/dev/shm");
  if (!dir) return;
  while (const dirent* entry = readdir(dir)) {
    int pid = 0;
    char rest[32];
    if (std::sscanf(entry->d_name, "clab-%d-%16[0-9a-f]", &pid, rest) != 2 || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    shm_unlink((std::string("/") + entry->d_name).c_str());
  }
  closedir(dir);
}

}  // namespace

void ShmSegment::validate_name(const std::string& name) {
  bool ok = name.size() > 6 && name.size() < 64 && name.compare(0, 6, "/clab-") == 0;
  for (size_t i = 1; ok && i < name.size(); i++) {
    const char c = name[i];
    ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
  }
  if (!ok) throw_invalid("id '" + name + "' is not a cpu communicator id (expected \"/clab-<pid>-<hex>\" from createUniqueId)");
}

std::string ShmSegment::create(uint32_t world, uint64_t slot_bytes, uint64_t mailbox_bytes) {
  remove_orphans();
  const Layout l = layout_for(world, slot_bytes, mailbox_bytes);
  char name[64];
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
    std::snprintf(name, sizeof name, "/clab-%d-%016llx", static_cast<int>(getpid()), static_cast<unsigned long long>(random64()));
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno != EEXIST) throw_system(std::string("shm_open(") + name + ")", errno);
  }
  if (fd < 0) throw_system("shm_open (unique name)", EEXIST);
  auto fail = [&](const std::string& what, int err) {
    close(fd);
    shm_unlink(name);
    throw_system(what, err);
  };
  if (ftruncate(fd, static_cast<off_t>(l.total)) != 0) fail(std::string("ftruncate(") + name + ")", errno);
  // Reserve the pages now: a full /dev/shm then fails here with a message, not with SIGBUS later.
  const int rc = posix_fallocate(fd, 0, static_cast<off_t>(l.total));
  if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
    char what[160];
    std::snprintf(what, sizeof what, "reserving %.1f MiB in /dev/shm for %s", l.total / 1048576.0, name);
    fail(what, rc);
  }
  void* p = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail(std::string("mmap(") + name + ")", errno);
  close(fd);

  auto* base = static_cast<uint8_t*>(p);
  auto* h = new (base) SegHeader();
  h->version = kSegVersion;
  h->world = world;
  h->total_bytes = l.total;
  h->slot_bytes = slot_bytes;
  h->mailbox_bytes = mailbox_bytes;
  h->ranks_offset = l.ranks_offset;
  h->coll_offset = l.coll_offset;
  h->mbox_offset = l.mbox_offset;
  h->creator_pid = static_cast<int32_t>(getpid());
  h->abort_rank = -1;
  for (uint32_t r = 0; r < world; r++) new (base + l.ranks_offset + r * sizeof(RankInfo)) RankInfo();
  for (uint64_t i = 0; i < static_cast<uint64_t>(world) * world; i++)
    new (base + l.mbox_offset + i * (sizeof(MboxCtl) + mailbox_bytes)) MboxCtl();
  std::atomic_thread_fence(std::memory_order_release);
  reinterpret_cast<std::atomic<uint64_t>*>(&h->magic)->store(kSegMagic, std::memory_order_release);
  munmap(p, l.total);
  return name;
}

ShmSegment::ShmSegment(const std::string& name, uint32_t rank, uint32_t world) : name_(name), rank_(rank), world_(world) {
  validate_name(name);
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    if (errno == ENOENT)
      throw_invalid("no cpu communicator named " + name + " (never created, removed, or all of its ranks already attached)");
    throw_system("shm_open(" + name + ")", errno);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    throw_system("fstat(" + name + ")", err);
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ < sizeof(SegHeader)) {
    close(fd);
    throw_invalid(name + " is not a cpu communicator segment (too small)");
  }
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) throw_system("mmap(" + name + ")", err);
  base_ = static_cast<uint8_t*>(p);
  hdr_ = reinterpret_cast<SegHeader*>(base_);
  auto unmap_and_throw = [&](const std::string& msg) {
    munmap(base_, size_);
    base_ = nullptr;
    throw_invalid(msg);
  };
  const uint64_t magic = reinterpret_cast<std::atomic<uint64_t>*>(&hdr_->magic)->load(std::memory_order_acquire);
  if (magic != kSegMagic || hdr_->version != kSegVersion || hdr_->total_bytes != size_)
    unmap_and_throw(name + " is not a cpu communicator segment of this addon version");
  if (hdr_->world != world)
    unmap_and_throw("world " + std::to_string(world) + " does not match the communicator's world " + std::to_string(hdr_->world) +
                    " (as passed to createUniqueId)");
  if (rank >= world) unmap_and_throw("rank " + std::to_string(rank) + " is out of range for world " + std::to_string(world));
  RankInfo* me = rank_info(rank);
  uint32_t expected = 0;
  if (!me->claimed.compare_exchange_strong(expected, 1))
    unmap_and_throw("rank " + std::to_string(rank) + " is already attached to " + name);
  me->pid.store(static_cast<int32_t>(getpid()), std::memory_order_release);
  if (hdr_->attached.fetch_add(1, std::memory_order_acq_rel) + 1 == world) shm_unlink(name.c_str());
}

void ShmSegment::detach() {
  if (!base_) return;
  rank_info(rank_)->detached.store(1, std::memory_order_release);
  // A rank that leaves before every rank attached (a run failing early) takes the name with it.
  shm_unlink(name_.c_str());
  munmap(base_, size_);
  base_ = nullptr;
  hdr_ = nullptr;
}

ShmSegment::~ShmSegment() { detach(); }

}  // namespace clab
