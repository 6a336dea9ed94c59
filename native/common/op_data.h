// What an op's data is when the backend makes and checks it (data_program.h): the pattern its
// send buffer is filled from, the program its recv buffer is checked against, and where the
// result goes (a Float64Array of the JS op: wrong elements, lowest wrong index or -1). No Node-API.
#pragma once

#include <cstdint>
#include <vector>

#include "common/data_program.h"

namespace clab {

struct OpData {
  bool fill = false;  // fill the send buffer (after poisoning recv)
  data::Fill fill_spec{};
  bool check = false;  // check the recv buffer after the op
  data::Pattern pattern{};
  uint8_t dtype = 0, redop = 0;
  std::vector<data::Segment> segments;
  std::vector<data::Term> terms;
  double* result = nullptr;  // [wrong, first]: written by the stream thread before the op settles

  /** The check program over this object's vectors (host memory). */
  data::Expect expect() const { return {pattern, dtype, redop, static_cast<uint32_t>(segments.size()), segments.data(), terms.data()}; }
  /** Elements the program covers. */
  uint64_t length() const { return segments.empty() ? 0 : segments.back().start + segments.back().length; }
  void set_result(const data::CheckResult& r) const {
    result[0] = static_cast<double>(r.wrong);
    result[1] = r.wrong ? static_cast<double>(r.first) : -1.0;
  }
};

}  // namespace clab
