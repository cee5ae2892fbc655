//===- OutputFile.cpp - writing what the tools produce ---------------------===//
#include "fpx/Pipeline/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

bool fpx::isSameFile(llvm::StringRef a, llvm::StringRef b) {
  bool same = false;
  return !llvm::sys::fs::equivalent(a, b, same) && same;
}

bool fpx::writeOutputFile(llvm::StringRef path, llvm::StringRef data,
                           llvm::StringRef inputPath, std::string &err) {
  if (isSameFile(inputPath, path)) {
    err = "refusing to overwrite the input '" + inputPath.str() + "'";
    return false;
  }
  // A device or FIFO (-o /dev/null, /dev/stdout, a pipe) is written in
  // place: renaming a temp file over it would replace the device node.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) && llvm::sys::fs::exists(st) &&
      !llvm::sys::fs::is_regular_file(st)) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      os << data;
    if (ec || os.has_error()) {
      err = "cannot write '" + path.str() + "'" + (ec ? ": " + ec.message() : "");
      return false;
    }
    return true;
  }
  llvm::SmallString<256> tmp(path);
  tmp += ".tmp%%%%%%";
  int fd;
  llvm::SmallString<256> tmpPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(tmp, fd, tmpPath)) {
    err = "cannot write '" + path.str() + "': " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << data;
    if (os.has_error()) {
      err = "cannot write '" + path.str() + "'";
      llvm::sys::fs::remove(tmpPath);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpPath, path)) {
    err = "cannot write '" + path.str() + "': " + ec.message();
    llvm::sys::fs::remove(tmpPath);
    return false;
  }
  return true;
}
