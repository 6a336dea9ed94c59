// JS values into the addon's types and back (the communicator's ops, their times): the part of
// the binding that reads what JS hands over, bounds every number and names the field at fault.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "binding/binding.h"
#include "common/errors.h"
#include "common/op.h"

namespace clab::binding {

std::string show(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsString()) return "'" + v.As<Napi::String>().Utf8Value() + "'";
  if (v.IsNumber() || v.IsBoolean()) return v.ToString().Utf8Value();
  if (v.IsArray()) return "an array";
  if (v.IsFunction()) return "a function";
  return "an object";
}

Napi::Error make_error(Napi::Env env, const std::string& code, const std::string& message, int rank) {
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  if (rank >= 0) err.Set("rank", Napi::Number::New(env, rank));
  return err;
}

int64_t get_int(const Napi::Value& v, const std::string& field, int64_t min, int64_t max) {
  if (!v.IsNumber()) throw_invalid(field + " must be an integer (got " + show(v) + ")");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::floor(d) != d) throw_invalid(field + " must be an integer (got " + show(v) + ")");
  if (d < static_cast<double>(min) || d > static_cast<double>(max))
    throw_invalid(field + " must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " + show(v) + ")");
  return static_cast<int64_t>(d);
}

std::string get_string(const Napi::Value& v, const std::string& field) {
  if (!v.IsString()) throw_invalid(field + " must be a string (got " + show(v) + ")");
  return v.As<Napi::String>().Utf8Value();
}

namespace {

// ---- parsing ------------------------------------------------------------------------------

/** An ArrayBufferView (or nothing: an empty buffer). Keeps a reference until the op settles. */
void get_buffer(Napi::Env env, const Napi::Value& v, const std::string& field, uint8_t** data, uint64_t* bytes, Refs& refs) {
  *data = nullptr;
  *bytes = 0;
  if (v.IsUndefined() || v.IsNull()) return;
  void* p = nullptr;
  size_t n = 0;
  napi_status status;
  if (v.IsTypedArray()) {
    napi_typedarray_type type;
    size_t length;
    napi_value ab;
    size_t offset;
    status = napi_get_typedarray_info(env, v, &type, &length, &p, &ab, &offset);
    n = v.As<Napi::TypedArray>().ByteLength();
  } else if (v.IsDataView()) {
    napi_value ab;
    size_t offset;
    status = napi_get_dataview_info(env, v, &n, &p, &ab, &offset);
  } else {
    throw_invalid(field + " must be an ArrayBufferView (TypedArray, DataView or Buffer), got " + show(v));
  }
  if (status != napi_ok) throw_invalid(field + ": cannot read the buffer behind this view");
  *data = static_cast<uint8_t*>(p);
  *bytes = n;
  refs.emplace_back(Napi::Persistent(v.As<Napi::Object>()));
}

double get_number(const Napi::Value& v, const std::string& field) {
  if (!v.IsNumber()) throw_invalid(field + " must be a number (got " + show(v) + ")");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::fabs(d) > 1e300) throw_invalid(field + " must be a finite number (got " + show(v) + ")");
  return d;
}

/** A Float64Array's elements (and a reference to it until the op settles). */
double* get_f64(Napi::Env env, const Napi::Value& v, const std::string& field, size_t* length, Refs& refs) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw_invalid(field + " must be a Float64Array (got " + show(v) + ")");
  Napi::Float64Array a = v.As<Napi::Float64Array>();
  *length = a.ElementLength();
  refs.emplace_back(Napi::Persistent(v.As<Napi::Object>()));
  return a.Data();
}

// Bounds of a check program: a segment per rank or per chunk at most, a term per rank of each.
constexpr size_t kMaxSegments = 1 << 16, kMaxTerms = 1 << 18;
constexpr double kMaxIndex = 9007199254740991.0;  // 2^53 - 1

/**
 * op.data (NativeData in src/shared/data-program.ts): { pattern: { kind, seed, a0, a1, b, min, max },
 * fill?: { rank }, expect?: Float64Array [length, terms, (rank, from) × terms, …], redop?, result: Float64Array(2) }.
 */
std::shared_ptr<const OpData> parse_data(Napi::Env env, const Napi::Value& v, const Op& op, Refs& refs) {
  const std::string path = op.path + ".data";
  if (!v.IsObject() || v.IsArray()) throw_invalid(path + " must be an object (got " + show(v) + ")");
  const Napi::Object o = v.As<Napi::Object>();
  auto d = std::make_shared<OpData>();
  d->dtype = static_cast<uint8_t>(op.dtype);
  const Napi::Value pv = o.Get("pattern");
  if (!pv.IsObject() || pv.IsArray()) throw_invalid(path + ".pattern must be an object (got " + show(pv) + ")");
  const Napi::Object p = pv.As<Napi::Object>();
  d->pattern.kind = static_cast<uint8_t>(get_int(p.Get("kind"), path + ".pattern.kind", data::kConstant, data::kRandom));
  d->pattern.seed = static_cast<uint32_t>(get_int(p.Get("seed"), path + ".pattern.seed", 0, 0xffffffffll));
  d->pattern.a0 = get_number(p.Get("a0"), path + ".pattern.a0");
  d->pattern.a1 = get_number(p.Get("a1"), path + ".pattern.a1");
  d->pattern.b = get_number(p.Get("b"), path + ".pattern.b");
  d->pattern.min = get_number(p.Get("min"), path + ".pattern.min");
  d->pattern.max = get_number(p.Get("max"), path + ".pattern.max");
  const Napi::Value fill = o.Get("fill");
  if (!fill.IsUndefined()) {
    if (!fill.IsObject() || fill.IsArray()) throw_invalid(path + ".fill must be an object (got " + show(fill) + ")");
    d->fill = true;
    d->fill_spec = {d->pattern, d->dtype,
                    static_cast<int32_t>(get_int(fill.As<Napi::Object>().Get("rank"), path + ".fill.rank", 0, 1 << 20))};
  }
  const Napi::Value expect = o.Get("expect");
  if (!expect.IsUndefined()) {
    d->check = true;
    if (op_has_redop(op.kind)) d->redop = static_cast<uint8_t>(op.redop);
    size_t n = 0;
    const double* prog = get_f64(env, expect, path + ".expect", &n, refs);
    uint64_t start = 0;
    for (size_t k = 0; k < n;) {
      const std::string at = path + ".expect[" + std::to_string(k) + "]";
      if (k + 2 > n) throw_invalid(at + ": a segment needs its length and its number of terms");
      const double length = prog[k], terms = prog[k + 1];
      if (!(length >= 1 && length <= kMaxIndex && std::floor(length) == length))
        throw_invalid(at + ": a segment's length must be a positive integer");
      if (!(terms >= 1 && terms <= 4096 && std::floor(terms) == terms))
        throw_invalid(at + ": a segment's number of terms must be 1 … 4096");
      const size_t t = static_cast<size_t>(terms);
      if (k + 2 + 2 * t > n) throw_invalid(at + ": the segment names " + std::to_string(t) + " terms but the program ends first");
      if (d->segments.size() == kMaxSegments || d->terms.size() + t > kMaxTerms)
        throw_invalid(path + ".expect: more than " + std::to_string(kMaxSegments) + " segments or " + std::to_string(kMaxTerms) + " terms");
      d->segments.push_back({start, static_cast<uint64_t>(length), static_cast<uint32_t>(d->terms.size()), static_cast<uint32_t>(t)});
      for (size_t i = 0; i < t; i++) {
        const double rank = prog[k + 2 + 2 * i], from = prog[k + 3 + 2 * i];
        if (!(rank >= 0 && rank <= (1 << 20) && std::floor(rank) == rank) ||
            !(from >= 0 && from + length <= kMaxIndex && std::floor(from) == from))
          throw_invalid(at + ": term " + std::to_string(i) + " must name a rank (0 … 2^20) and a first element (an integer ≥ 0)");
        d->terms.push_back({static_cast<int32_t>(rank), static_cast<uint64_t>(from)});
      }
      start += static_cast<uint64_t>(length);
      k += 2 + 2 * t;
    }
    if (d->segments.empty()) throw_invalid(path + ".expect: no segment");
  }
  size_t rn = 0;
  d->result = get_f64(env, o.Get("result"), path + ".result", &rn, refs);
  if (rn < 2) throw_invalid(path + ".result must hold 2 elements (wrong, first)");
  return d;
}

}  // namespace

Op parse_op(Napi::Env env, const Napi::Value& v, const std::string& path, Refs& refs, int depth) {
  if (!v.IsObject() || v.IsArray()) throw_invalid(path + " must be an object (got " + show(v) + ")");
  if (depth > 8) throw_invalid(path + ": groups nested too deeply");
  const Napi::Object o = v.As<Napi::Object>();
  Op op;
  op.path = path;
  const std::string kind = get_string(o.Get("op"), path + ".op");
  if (!parse_op_kind(kind, &op.kind)) throw_invalid(path + ".op: unknown op '" + kind + "' (expected one of " + op_kind_list() + ")");

  const Napi::Value comm = o.Get("comm");
  if (!comm.IsUndefined()) op.comm = static_cast<int>(get_int(comm, path + ".comm", 0, 64));
  const Napi::Value window = o.Get("window");
  if (!window.IsUndefined() && !window.IsBoolean()) throw_invalid(path + ".window must be a boolean (got " + show(window) + ")");
  op.window = window.IsBoolean() && window.As<Napi::Boolean>().Value();
  if (op.kind == OpKind::Group) {
    const Napi::Value ops = o.Get("ops");
    if (!ops.IsArray()) throw_invalid(path + ".ops must be an array of ops (got " + show(ops) + ")");
    const Napi::Array arr = ops.As<Napi::Array>();
    for (uint32_t i = 0; i < arr.Length(); i++) {
      Op child = parse_op(env, arr.Get(i), path + ".ops[" + std::to_string(i) + "]", refs, depth + 1);
      if (child.kind == OpKind::Group) {  // nested groups merge, as ncclGroupStart/End nest
        for (Op& c : child.ops) op.ops.push_back(std::move(c));
      } else {
        op.ops.push_back(std::move(child));
      }
    }
    for (Op& c : op.ops) {  // a group is issued on one communicator, its buffers all windows or none
      c.comm = op.comm;
      c.window = op.window;
    }
    return op;
  }
  if (op_has_dtype(op.kind)) {
    const std::string d = get_string(o.Get("dtype"), path + ".dtype");
    if (!parse_dtype(d, &op.dtype)) throw_invalid(path + ".dtype: unknown dtype '" + d + "' (expected one of " + kDtypeList + ")");
  }
  if (op_has_redop(op.kind)) {
    const std::string r = get_string(o.Get("redop"), path + ".redop");
    if (!parse_redop(r, &op.redop)) throw_invalid(path + ".redop: unknown redop '" + r + "' (expected one of " + kRedopList + ")");
  }
  if (op_has_root(op.kind)) op.root = static_cast<int>(get_int(o.Get("root"), path + ".root", -(1 << 30), 1 << 30));
  if (op_has_peer(op.kind)) op.peer = static_cast<int>(get_int(o.Get("peer"), path + ".peer", -(1 << 30), 1 << 30));
  if (op_is_p2p(op.kind)) {
    const Napi::Value t = o.Get("transport");
    if (!t.IsUndefined()) {
      const std::string name = get_string(t, path + ".transport");
      if (name == "copy-engine") op.transport = Transport::CopyEngine;
      else if (name != "nccl")
        throw_invalid(path + ".transport: unknown transport '" + name + "' (expected nccl or copy-engine)");
    }
  }
  if (op_has_count(op.kind)) op.count = static_cast<uint64_t>(get_int(o.Get("count"), path + ".count", 0, (1ll << 53) - 1));
  if (op_has_send(op.kind)) get_buffer(env, o.Get("send"), path + ".send", &op.send, &op.send_bytes, refs);
  if (op_has_recv(op.kind)) get_buffer(env, o.Get("recv"), path + ".recv", &op.recv, &op.recv_bytes, refs);
  const Napi::Value data = o.Get("data");
  if (!data.IsUndefined() && (op_traits(op.kind).cls == OpClass::Collective || op_traits(op.kind).cls == OpClass::P2p))
    op.data = parse_data(env, data, op, refs);
  if (op.kind == OpKind::Gemm) {
    op.m = static_cast<uint64_t>(get_int(o.Get("m"), path + ".m", 0, 1ll << 40));
    op.n = static_cast<uint64_t>(get_int(o.Get("n"), path + ".n", 0, 1ll << 40));
    op.k = static_cast<uint64_t>(get_int(o.Get("k"), path + ".k", 0, 1ll << 40));
    const Napi::Value sm = o.Get("smCount");
    if (!sm.IsUndefined()) op.sm_count = static_cast<int>(get_int(sm, path + ".smCount", 0, 4096));
  }
  return op;
}

Napi::Value rejected(Napi::Env env, const ClabError& e, int rank) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(make_error(env, e.code_name(), e.what(), rank).Value());
  return deferred.Promise();
}

Napi::Object get_options(const Napi::CallbackInfo& info, const char* call) {
  if (!info[0].IsObject() || info[0].IsArray()) throw_invalid(std::string(call) + " takes one options object (got " + show(info[0]) + ")");
  return info[0].As<Napi::Object>();
}

Backend get_backend(const Napi::Object& o) {
  const Napi::Value v = o.Get("backend");
  if (v.IsString()) {
    const std::string b = v.As<Napi::String>().Utf8Value();
    if (b == "cpu") return Backend::Cpu;
    if (b == "nccl") return Backend::Nccl;
  }
  throw_invalid("backend must be 'cpu' or 'nccl' (got " + show(v) + ")");
}

std::vector<GpuGemm::Shape> get_gemm_shapes(Napi::Env env, const Napi::Value& v) {
  std::vector<GpuGemm::Shape> shapes;
  if (v.IsUndefined()) return shapes;
  if (!v.IsArray()) throw_invalid("gemms must be an array of gemm ops (got " + show(v) + ")");
  const Napi::Array list = v.As<Napi::Array>();
  if (list.Length() > 8) throw_invalid("gemms: at most 8 (got " + std::to_string(list.Length()) + ")");
  Refs refs;
  for (uint32_t i = 0; i < list.Length(); i++) {
    const std::string path = "gemms[" + std::to_string(i) + "]";
    const Op op = parse_op(env, list.Get(i), path, refs, 0);
    if (op.kind != OpKind::Gemm) throw_invalid(path + ".op must be gemm");
    shapes.push_back({op.dtype, op.m, op.n, op.k});
  }
  return shapes;
}

Napi::Object times_object(Napi::Env e, const Times& m) {
  Napi::Object times = Napi::Object::New(e);
  Napi::Array s = Napi::Array::New(e, m.start.size()), t = Napi::Array::New(e, m.end.size());
  for (size_t i = 0; i < m.start.size(); i++) {
    s.Set(static_cast<uint32_t>(i), Napi::Number::New(e, static_cast<double>(m.start[i])));
    t.Set(static_cast<uint32_t>(i), Napi::Number::New(e, static_cast<double>(m.end[i])));
  }
  times.Set("startNs", s);
  times.Set("endNs", t);
  if (m.loop_end != 0) {
    times.Set("loopStartNs", Napi::Number::New(e, static_cast<double>(m.loop_start)));
    times.Set("loopEndNs", Napi::Number::New(e, static_cast<double>(m.loop_end)));
    Napi::Object host = Napi::Object::New(e);
    host.Set("issueNs", Napi::Number::New(e, static_cast<double>(m.loop_issue_ns)));
    host.Set("faults", Napi::Number::New(e, static_cast<double>(m.loop_faults)));
    host.Set("blocked", Napi::Number::New(e, static_cast<double>(m.loop_blocked)));
    host.Set("preempted", Napi::Number::New(e, static_cast<double>(m.loop_preempted)));
    times.Set("loopHost", host);
    if (m.graph_wanted) times.Set("launch", Napi::String::New(e, "graph"));
    if (m.events_in_loop) times.Set("eventsInLoop", Napi::Boolean::New(e, true));
  }
  if (!m.seq.empty()) {
    Napi::Array seq = Napi::Array::New(e, m.seq.size());
    for (size_t i = 0; i < m.seq.size(); i++) seq.Set(static_cast<uint32_t>(i), Napi::Number::New(e, static_cast<double>(m.seq[i])));
    times.Set("ncclSeq", seq);
  }
  if (m.windows_asked != 0) {
    Napi::Object windows = Napi::Object::New(e);
    windows.Set("asked", Napi::Number::New(e, m.windows_asked));
    windows.Set("declined", Napi::Number::New(e, m.windows_declined));
    times.Set("windows", windows);
  }
  if (m.data_fill_end != 0) {
    times.Set("dataFillStartNs", Napi::Number::New(e, static_cast<double>(m.data_fill_start)));
    times.Set("dataFillEndNs", Napi::Number::New(e, static_cast<double>(m.data_fill_end)));
  }
  if (m.data_check_end != 0) {
    times.Set("dataCheckStartNs", Napi::Number::New(e, static_cast<double>(m.data_check_start)));
    times.Set("dataCheckEndNs", Napi::Number::New(e, static_cast<double>(m.data_check_end)));
  }
  return times;
}

}  // namespace clab::binding
