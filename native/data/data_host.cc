// data_program.h's fill and check over host memory: the cpu backend's, and the native tests'.
#include "data/data_host.h"

#include <cstdlib>
#include <cstring>

namespace clab {

std::string data_place_from_env() {
  const char* v = std::getenv("CLAB_DATA");
  return v ? v : "";
}

void fill_host(uint8_t* dst, uint64_t n, const data::Fill& f) {
  for (uint64_t i = 0; i < n; i++)
    data::write_bits(dst, f.dtype, i, data::store(f.dtype, data::pattern_value(f.pattern, f.dtype, f.rank, i)));
}

data::CheckResult check_host(const uint8_t* out, uint64_t n, const data::Expect& e) {
  data::CheckResult r{0, ~0ull};
  for (uint32_t s = 0; s < e.segments; s++) {
    const data::Segment& seg = e.segment[s];
    const uint64_t end = seg.start + seg.length < n ? seg.start + seg.length : n;
    for (uint64_t i = seg.start; i < end; i++) {
      if (data::element_matches(e.dtype, data::expected_bits(e, seg, i), data::read_bits(out, e.dtype, i))) continue;
      if (r.wrong++ == 0) r.first = i;
    }
  }
  return r;
}

namespace {

template <class F>
void each_with_data(const Op& op, F f) {
  if (op.kind == OpKind::Group) {
    for (const Op& c : op.ops) each_with_data(c, f);
  } else if (op.data) {
    f(op);
  }
}

}  // namespace

bool op_has_data(const Op& op) {
  bool any = false;
  each_with_data(op, [&](const Op&) { any = true; });
  return any;
}

void fill_host_data(const Op& op, int rank, int world) {
  each_with_data(op, [&](const Op& o) {
    uint64_t sb = 0, rb = 0;
    op_buffer_bytes(o, rank, world, &sb, &rb);
    if (rb) std::memset(o.recv, 0xff, rb);
    if (o.data->fill && sb) fill_host(o.send, sb / dtype_size(o.dtype), o.data->fill_spec);
  });
}

void check_host_data(const Op& op, int rank, int world) {
  each_with_data(op, [&](const Op& o) {
    if (!o.data->check) return;
    uint64_t sb = 0, rb = 0;
    op_buffer_bytes(o, rank, world, &sb, &rb);
    o.data->set_result(check_host(o.recv, rb / dtype_size(o.dtype), o.data->expect()));
  });
}

}  // namespace clab
