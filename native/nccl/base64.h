// Base64 (RFC 4648, with padding) of the NCCL unique id, which crosses processes as a string.
#pragma once

#include <cstdint>
#include <string>

namespace clab {

inline std::string base64_encode(const uint8_t* data, size_t n) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = (uint32_t(data[i]) << 16) | (i + 1 < n ? uint32_t(data[i + 1]) << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < n ? abc[(v >> 6) & 63] : '=';
    out += i + 2 < n ? abc[v & 63] : '=';
  }
  return out;
}

/** Decodes `text` into exactly `n` bytes at `out`; false if it is not base64 of that length. */
inline bool base64_decode(const std::string& text, uint8_t* out, size_t n) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() != (n + 2) / 3 * 4) return false;
  size_t o = 0;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    for (size_t j = 0; j < 4; j++) {
      const char c = text[i + j];
      const int d = c == '=' && i + 4 == text.size() && j >= 2 ? 0 : value(c);
      if (d < 0) return false;
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    for (int j = 2; j >= 0 && o < n; j--) out[o++] = static_cast<uint8_t>(v >> (8 * j));
  }
  return o == n;
}

}  // namespace clab
