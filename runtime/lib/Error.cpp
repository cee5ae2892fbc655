//===- Error.cpp - Runtime errors -------------------------------------------===//

#include "fpx/Runtime/Error.h"

namespace fpx::rt {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::NoDevice: return "no_device";
  case ErrorCode::DriverTooOld: return "driver_too_old";
  case ErrorCode::WrongArchitecture: return "wrong_architecture";
  case ErrorCode::OutOfMemory: return "out_of_memory";
  case ErrorCode::LaunchFailed: return "launch_failed";
  case ErrorCode::InvalidArgument: return "invalid_argument";
  case ErrorCode::InvalidArtifact: return "invalid_artifact";
  case ErrorCode::CompileFailed: return "compile_failed";
  case ErrorCode::NotFound: return "not_found";
  case ErrorCode::CacheError: return "cache_error";
  case ErrorCode::CudaError: return "cuda_error";
  }
  return "unknown";
}

static std::string formatMessage(const std::string &call,
                                 const std::string &subject,
                                 const std::string &cause) {
  std::string msg = "fpx: " + call;
  if (!subject.empty())
    msg += " [" + subject + "]";
  msg += ": " + cause;
  return msg;
}

Error::Error(ErrorCode code, std::string call, std::string subject,
             std::string cause)
    : std::runtime_error(formatMessage(call, subject, cause)), Code(code),
      Call(std::move(call)), Subject(std::move(subject)),
      Cause(std::move(cause)) {}

} // namespace fpx::rt
