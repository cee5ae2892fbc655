//===- DiskCache.h - Crash- and race-safe on-disk cache ---------*- C++ -*-===//
//
// Compiled artifacts are cached on disk, keyed by a hash of everything that
// changes the code. The cache lives in $FPX_CACHE_DIR, else
// $XDG_CACHE_HOME/fpx, else ~/.cache/fpx.
//
// Each entry is one file: a fixed header (magic, format version, payload
// length, XXH3-128 of the key and of the payload) then the payload. Entries
// are written to a temp file in the same directory and renamed into place,
// so readers see a whole entry or none; a truncated or corrupt entry fails
// its hash and is rebuilt. Producers of the same key are serialised across
// processes with flock on a side lock file, so a cold cache shared by many
// workers compiles each key once.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_DISKCACHE_H
#define FPX_RUNTIME_DISKCACHE_H

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpx::rt {

/// Reads the whole regular file at \p path into \p out. A directory, FIFO,
/// device or a file over \p maxBytes is refused without blocking (a FIFO or
/// /dev/zero would otherwise hang the caller); on failure returns false with
/// the cause in \p why.
constexpr size_t kMaxReadFileBytes = size_t(1) << 30;
bool readRegularFile(const std::string &path, std::string &out,
                     std::string *why = nullptr,
                     size_t maxBytes = kMaxReadFileBytes);

/// XXH3-128 of \p data as 32 lower-case hex digits.
std::string hashHex(std::string_view data);

/// Builds a cache key from named parts; each part is length-framed, so
/// ("ab","c") and ("a","bc") differ.
class CacheKeyBuilder {
public:
  CacheKeyBuilder &add(std::string_view name, std::string_view value);
  /// 32 hex digits.
  std::string key() const;

private:
  std::string Buffer;
};

/// A set of named files serialised into one blob (how an artifact directory
/// is stored as one cache entry).
using FileBundle = std::vector<std::pair<std::string, std::string>>;
std::string packFiles(const FileBundle &files);
/// Throws Error(CacheError) on a malformed blob.
FileBundle unpackFiles(std::string_view blob);

class DiskCache {
public:
  /// Outcome of a lookup, for callers and tests that care.
  enum class LookupStatus { Hit, Miss, Corrupt };

  /// A cache rooted at \p directory (created on first store).
  explicit DiskCache(std::string directory);

  /// $FPX_CACHE_DIR, else $XDG_CACHE_HOME/fpx, else $HOME/.cache/fpx.
  static std::string defaultDirectory();
  /// The process-wide cache at defaultDirectory() (read once).
  static DiskCache &global();

  const std::string &directory() const { return Dir; }
  /// The file holding \p key's entry.
  std::string entryPath(std::string_view key) const;

  /// Reads and verifies the entry for \p key; \p status says why it is
  /// absent (a corrupt entry reads as nullopt with status Corrupt).
  std::optional<std::string> lookup(std::string_view key,
                                    LookupStatus *status = nullptr) const;

  /// Writes the entry atomically (temp file + rename). Throws CacheError.
  void store(std::string_view key, std::string_view payload) const;

  /// The cached payload for \p key, or the producer's result, stored. The
  /// producer runs under an inter-process lock for the key so that
  /// concurrent callers produce it once; a failing producer stores nothing.
  std::string getOrCreate(std::string_view key,
                          const std::function<std::string()> &producer) const;

  /// Removes the entry (if any); for tests and `fpx cache clear`.
  void remove(std::string_view key) const;

private:
  std::string Dir;
};

} // namespace fpx::rt

#endif // FPX_RUNTIME_DISKCACHE_H
