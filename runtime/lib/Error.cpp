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

/// \p text with every byte that is not part of a well-formed UTF-8 sequence
/// written as \xNN: messages quote file names, JSON strings and file bytes,
/// and Python decodes them as UTF-8 (a stray byte would replace the error
/// with a UnicodeDecodeError).
static std::string validUtf8(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  auto cont = [&](size_t i) {
    return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size();
    for (size_t j = 1; ok && j < len; ++j)
      ok = cont(i + j);
    if (ok && len > 1) { // no overlong forms, surrogates or code points past U+10FFFF
      unsigned char d = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xC0 || c == 0xC1 || (c == 0xE0 && d < 0xA0) ||
             (c == 0xED && d >= 0xA0) || (c == 0xF0 && d < 0x90) ||
             (c == 0xF4 && d >= 0x90) || c > 0xF4);
    }
    if (ok) {
      out.append(text, i, len);
      i += len;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    }
  }
  return out;
}

static std::string formatMessage(const std::string &call,
                                 const std::string &subject,
                                 const std::string &cause) {
  std::string msg = "fpx: " + call;
  if (!subject.empty())
    msg += " [" + subject + "]";
  msg += ": " + cause;
  return validUtf8(msg);
}

Error::Error(ErrorCode code, std::string call, std::string subject,
             std::string cause)
    : std::runtime_error(formatMessage(call, subject, cause)), Code(code),
      Call(std::move(call)), Subject(std::move(subject)),
      Cause(std::move(cause)) {}

} // namespace fpx::rt
