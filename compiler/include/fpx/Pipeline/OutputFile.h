//===- OutputFile.h - writing what the tools produce ------------*- C++ -*-===//
//
// fpxc and fpx-opt write their outputs only once they have them, so that a
// failed run leaves every file the user had as it was.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_PIPELINE_OUTPUTFILE_H
#define FPX_PIPELINE_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace fpx {

/// Whether paths `a` and `b` name one existing file (by device and inode, so
/// through any spelling, symlink or hard link).
bool isSameFile(llvm::StringRef a, llvm::StringRef b);

/// Writes `data` to `path`: a regular file atomically (a temp file in the
/// same directory, then a rename), a device or FIFO (/dev/null, a pipe) in
/// place. Refuses to overwrite `inputPath` (isSameFile). On failure
/// returns false with the reason in `err`, and `path` is as it was.
bool writeOutputFile(llvm::StringRef path, llvm::StringRef data,
                     llvm::StringRef inputPath, std::string &err);

} // namespace fpx

#endif // FPX_PIPELINE_OUTPUTFILE_H
