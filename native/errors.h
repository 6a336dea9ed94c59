// Errors that cross into JavaScript: a code (Error.code) and a message. No Node-API here.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

namespace clab {

enum class ErrCode { InvalidArgument, Aborted, SystemError };

inline const char* err_code_name(ErrCode c) {
  switch (c) {
    case ErrCode::InvalidArgument: return "CLAB_INVALID_ARGUMENT";
    case ErrCode::Aborted: return "CLAB_ABORTED";
    case ErrCode::SystemError: return "CLAB_SYSTEM_ERROR";
  }
  return "CLAB_SYSTEM_ERROR";
}

class ClabError : public std::runtime_error {
 public:
  ClabError(ErrCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrCode code() const { return code_; }

 private:
  ErrCode code_;
};

[[noreturn]] inline void throw_invalid(const std::string& message) {
  throw ClabError(ErrCode::InvalidArgument, message);
}

/** `what` failed with errno `err`: "shm_open(/clab-1-ab) failed: No such file or directory". */
[[noreturn]] inline void throw_system(const std::string& what, int err) {
  throw ClabError(ErrCode::SystemError, what + " failed: " + std::strerror(err));
}

}  // namespace clab
