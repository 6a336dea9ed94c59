// Errors that cross into JavaScript: a code (Error.code) and a message. No Node-API here.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

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
  /** An error under a library's own name, e.g. NCCL_ERROR_REMOTE_ERROR or cudaErrorIllegalAddress. */
  ClabError(std::string code_name, const std::string& message)
      : std::runtime_error(message), code_(ErrCode::SystemError), name_(std::move(code_name)) {}
  ErrCode code() const { return code_; }
  /** What Error.code says in JavaScript. */
  const char* code_name() const { return name_.empty() ? err_code_name(code_) : name_.c_str(); }

 private:
  ErrCode code_;
  std::string name_;
};

[[noreturn]] inline void throw_invalid(const std::string& message) { throw ClabError(ErrCode::InvalidArgument, message); }

/** `what` failed with errno `err`: "shm_open(/clab-1-ab) failed: No such file or directory". */
[[noreturn]] inline void throw_system(const std::string& what, int err) {
  throw ClabError(ErrCode::SystemError, what + " failed: " + std::strerror(err));
}

}  // namespace clab
