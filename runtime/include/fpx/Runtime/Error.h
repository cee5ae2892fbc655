//===- Error.h - Errors raised by libfpxrt ----------------------*- C++ -*-===//
//
// One exception type for the whole runtime. Every error names the call that
// failed, the kernel (or artifact) it was working on and the cause, so that a
// user reading a Python traceback knows what to fix without a debugger.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_ERROR_H
#define FPX_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace fpx::rt {

/// What went wrong, coarse enough for callers to branch on (the Python
/// package maps each code to its own exception class).
enum class ErrorCode {
  NoDevice,          ///< no driver, no GPU, or CUDA could not initialise
  DriverTooOld,      ///< the driver cannot JIT this PTX version
  WrongArchitecture, ///< the artifact targets another GPU architecture
  OutOfMemory,       ///< a device allocation failed
  LaunchFailed,      ///< the launch (or the kernel) failed
  InvalidArgument,   ///< bad tensor: dtype, shape, alignment, contiguity
  InvalidArtifact,   ///< the artifact's files or metadata are malformed
  CompileFailed,     ///< PTX JIT, NVRTC or fpxc reported an error
  NotFound,          ///< a named function, kernel, file or tool is missing
  CacheError,        ///< the disk cache could not be read or written
  CudaError,         ///< any other CUDA driver or NVRTC failure
};

/// The stable lower-case name of an error code ("no_device", ...).
const char *errorCodeName(ErrorCode code);

/// The exception thrown by every libfpxrt entry point.
class Error : public std::runtime_error {
public:
  /// \p call is the API call or step that failed ("cuModuleLoadDataEx",
  /// "parse artifact"), \p subject the kernel, function or file it concerned
  /// (may be empty), \p cause a human-readable reason.
  Error(ErrorCode code, std::string call, std::string subject,
        std::string cause);

  ErrorCode code() const { return Code; }
  const std::string &call() const { return Call; }
  const std::string &subject() const { return Subject; }
  const std::string &cause() const { return Cause; }

private:
  ErrorCode Code;
  std::string Call;
  std::string Subject;
  std::string Cause;
};

} // namespace fpx::rt

#endif // FPX_RUNTIME_ERROR_H
