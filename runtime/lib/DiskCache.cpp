//===- DiskCache.cpp - Atomic, self-checking cache entries -------------------===//

#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Error.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fpx::rt {

namespace {
constexpr char kMagic[8] = {'F', 'P', 'X', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kEntryVersion = 1;

/// On-disk header, little-endian fields (all machines here are).
struct EntryHeader {
  char Magic[8];
  uint32_t Version;
  uint32_t Reserved;
  uint64_t PayloadSize;
  uint8_t KeyHash[16];
  uint8_t PayloadHash[16];
};
static_assert(sizeof(EntryHeader) == 56, "packed header layout");

void hash128(std::string_view data, uint8_t out[16]) {
  XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, h);
  std::memcpy(out, canonical.digest, 16);
}

[[noreturn]] void ioFail(const char *call, const std::string &path) {
  throw Error(ErrorCode::CacheError, call, path, std::strerror(errno));
}

/// mkdir -p; concurrent creators are fine (EEXIST).
void makeDirs(const std::string &path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/')
      continue;
    std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      ioFail("mkdir", prefix);
  }
}

void writeAll(int fd, const char *data, size_t size, const std::string &path) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      ioFail("write", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

/// A name no other writer (thread or process) uses at the same time.
std::string uniqueSuffix() {
  static std::atomic<unsigned> counter{0};
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::to_string(::getpid()) + "." + std::to_string(counter++) + "." +
         std::to_string(static_cast<unsigned long long>(now) & 0xffffff);
}

/// flock on a side file, released on destruction. Best effort: on a file
/// system without flock the cache still works, producers just may race
/// (each write is atomic anyway).
class KeyLock {
public:
  explicit KeyLock(const std::string &path) {
    Fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd >= 0)
      while (::flock(Fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~KeyLock() {
    if (Fd >= 0) {
      ::flock(Fd, LOCK_UN);
      ::close(Fd);
    }
  }

private:
  int Fd = -1;
};

void checkKey(std::string_view key) {
  bool ok = !key.empty() && key.size() <= 128;
  for (char c : key)
    ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  if (!ok)
    throw Error(ErrorCode::CacheError, "disk cache", std::string(key),
                "a cache key must be 1-128 characters of [A-Za-z0-9_-]");
}
} // namespace

bool readRegularFile(const std::string &path, std::string &out,
                     std::string *why, size_t maxBytes) {
  auto fail = [&](std::string cause) {
    if (why)
      *why = std::move(cause);
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below, as are devices like /dev/zero that never end).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    return fail("larger than " + std::to_string(maxBytes >> 20) + " MiB");
  }
  out.clear();
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return fail(std::strerror(err));
    }
    if (n == 0)
      break;
    if (out.size() + static_cast<size_t>(n) > maxBytes) { // grew while read
      ::close(fd);
      return fail("larger than " + std::to_string(maxBytes >> 20) + " MiB");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

std::string hashHex(std::string_view data) {
  uint8_t digest[16];
  hash128(data, digest);
  static const char *hex = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 15];
  }
  return out;
}

CacheKeyBuilder &CacheKeyBuilder::add(std::string_view name,
                                      std::string_view value) {
  for (std::string_view part : {name, value}) {
    uint64_t size = part.size();
    Buffer.append(reinterpret_cast<const char *>(&size), sizeof(size));
    Buffer.append(part);
  }
  return *this;
}

std::string CacheKeyBuilder::key() const { return hashHex(Buffer); }

std::string packFiles(const FileBundle &files) {
  std::string out = "FPXB";
  uint32_t count = static_cast<uint32_t>(files.size());
  out.append(reinterpret_cast<const char *>(&count), 4);
  for (const auto &[name, data] : files) {
    uint32_t nameSize = static_cast<uint32_t>(name.size());
    uint64_t dataSize = data.size();
    out.append(reinterpret_cast<const char *>(&nameSize), 4);
    out.append(name);
    out.append(reinterpret_cast<const char *>(&dataSize), 8);
    out.append(data);
  }
  return out;
}

FileBundle unpackFiles(std::string_view blob) {
  auto fail = [] {
    throw Error(ErrorCode::CacheError, "unpack files", "",
                "malformed file bundle");
  };
  size_t pos = 0;
  auto take = [&](void *dst, size_t n) {
    if (blob.size() - pos < n)
      fail();
    std::memcpy(dst, blob.data() + pos, n);
    pos += n;
  };
  if (blob.substr(0, 4) != "FPXB")
    fail();
  pos = 4;
  uint32_t count;
  take(&count, 4);
  FileBundle files;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameSize;
    take(&nameSize, 4);
    if (blob.size() - pos < nameSize)
      fail();
    std::string name(blob.substr(pos, nameSize));
    pos += nameSize;
    uint64_t dataSize;
    take(&dataSize, 8);
    if (blob.size() - pos < dataSize)
      fail();
    files.emplace_back(std::move(name), std::string(blob.substr(pos, dataSize)));
    pos += dataSize;
  }
  if (pos != blob.size())
    fail();
  return files;
}

DiskCache::DiskCache(std::string directory) : Dir(std::move(directory)) {
  while (Dir.size() > 1 && Dir.back() == '/')
    Dir.pop_back();
}

std::string DiskCache::defaultDirectory() {
  if (const char *dir = std::getenv("FPX_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/fpx";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/fpx";
  return "/tmp/fpx-cache-" + std::to_string(::getuid());
}

DiskCache &DiskCache::global() {
  static DiskCache cache(defaultDirectory());
  return cache;
}

std::string DiskCache::entryPath(std::string_view key) const {
  checkKey(key);
  // Two-level fan-out keeps directories small on busy machines.
  return Dir + "/" + std::string(key.substr(0, 2)) + "/" + std::string(key) +
         ".fpxc";
}

std::optional<std::string> DiskCache::lookup(std::string_view key,
                                             LookupStatus *status) const {
  auto result = [&](LookupStatus s) {
    if (status)
      *status = s;
    return std::nullopt;
  };
  std::string raw;
  if (!readRegularFile(entryPath(key), raw))
    return result(LookupStatus::Miss);
  EntryHeader header;
  if (raw.size() < sizeof(header))
    return result(LookupStatus::Corrupt);
  std::memcpy(&header, raw.data(), sizeof(header));
  if (std::memcmp(header.Magic, kMagic, 8) != 0 ||
      header.Version != kEntryVersion ||
      header.PayloadSize != raw.size() - sizeof(header))
    return result(LookupStatus::Corrupt);
  uint8_t keyHash[16], payloadHash[16];
  hash128(key, keyHash);
  std::string_view payload(raw.data() + sizeof(header),
                           raw.size() - sizeof(header));
  hash128(payload, payloadHash);
  if (std::memcmp(keyHash, header.KeyHash, 16) != 0 ||
      std::memcmp(payloadHash, header.PayloadHash, 16) != 0)
    return result(LookupStatus::Corrupt);
  if (status)
    *status = LookupStatus::Hit;
  return std::string(payload);
}

void DiskCache::store(std::string_view key, std::string_view payload) const {
  std::string path = entryPath(key);
  std::string dir = path.substr(0, path.rfind('/'));
  makeDirs(dir);

  EntryHeader header;
  std::memset(&header, 0, sizeof(header));
  std::memcpy(header.Magic, kMagic, 8);
  header.Version = kEntryVersion;
  header.PayloadSize = payload.size();
  hash128(key, header.KeyHash);
  hash128(payload, header.PayloadHash);

  // Same directory as the entry, so rename() is atomic (same file system).
  std::string temp = path + ".tmp." + uniqueSuffix();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    ioFail("open", temp);
  try {
    writeAll(fd, reinterpret_cast<const char *>(&header), sizeof(header), temp);
    writeAll(fd, payload.data(), payload.size(), temp);
    // Data must be on disk before the name points at it, or a crash could
    // leave a complete-looking name over an empty file.
    if (::fdatasync(fd) != 0)
      ioFail("fdatasync", temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    ioFail("rename", path);
  }
}

std::string
DiskCache::getOrCreate(std::string_view key,
                       const std::function<std::string()> &producer) const {
  if (std::optional<std::string> hit = lookup(key))
    return *hit;
  std::string path = entryPath(key);
  makeDirs(path.substr(0, path.rfind('/')));
  KeyLock lock(path + ".lock");
  // Another process may have produced it while we waited for the lock.
  if (std::optional<std::string> hit = lookup(key))
    return *hit;
  std::string payload = producer();
  store(key, payload);
  return payload;
}

void DiskCache::remove(std::string_view key) const {
  ::unlink(entryPath(key).c_str());
}

} // namespace fpx::rt
