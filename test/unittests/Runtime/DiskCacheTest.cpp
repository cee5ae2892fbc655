//===- DiskCacheTest.cpp - Atomic entries, corruption, concurrent processes ===//

#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace fpx::rt;
namespace fs = std::filesystem;

namespace {

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    char templ[] = "/tmp/fpx-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    Dir = templ;
  }
  void TearDown() override { fs::remove_all(Dir); }
  std::string Dir;
};

std::string readRaw(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeRaw(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

TEST(CacheKey, HashesAreStableAndFramed) {
  EXPECT_EQ(hashHex("").size(), 32u);
  EXPECT_EQ(hashHex("abc"), hashHex("abc"));
  EXPECT_NE(hashHex("abc"), hashHex("abd"));
  std::string k1 = CacheKeyBuilder().add("a", "bc").key();
  std::string k2 = CacheKeyBuilder().add("ab", "c").key();
  EXPECT_NE(k1, k2);
  EXPECT_EQ(CacheKeyBuilder().add("spec", "x").add("target", "sm_90a").key(),
            CacheKeyBuilder().add("spec", "x").add("target", "sm_90a").key());
}

TEST(FileBundle, RoundTrip) {
  FileBundle files = {{"a.json", "{}"}, {"a.ptx", std::string("\0x\0", 3)}};
  EXPECT_EQ(unpackFiles(packFiles(files)), files);
  std::string blob = packFiles(files);
  EXPECT_THROW(unpackFiles(blob.substr(0, blob.size() - 1)), Error);
  EXPECT_THROW(unpackFiles("nope"), Error);
}

TEST_F(DiskCacheTest, StoreAndLookup) {
  DiskCache cache(Dir);
  std::string key = hashHex("k");
  DiskCache::LookupStatus status;
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Miss);
  cache.store(key, "payload");
  EXPECT_EQ(cache.lookup(key, &status), std::optional<std::string>("payload"));
  EXPECT_EQ(status, DiskCache::LookupStatus::Hit);
  // No temp files are left behind.
  for (auto &entry : fs::recursive_directory_iterator(Dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos)
        << entry.path();
  EXPECT_THROW(cache.entryPath("../evil"), Error);
}

TEST_F(DiskCacheTest, GetOrCreateRunsTheProducerOnce) {
  DiskCache cache(Dir);
  int calls = 0;
  auto producer = [&] {
    ++calls;
    return std::string("built");
  };
  std::string key = hashHex("once");
  EXPECT_EQ(cache.getOrCreate(key, producer), "built");
  EXPECT_EQ(cache.getOrCreate(key, producer), "built");
  EXPECT_EQ(calls, 1);
}

TEST_F(DiskCacheTest, FailingProducerStoresNothing) {
  DiskCache cache(Dir);
  std::string key = hashHex("fails");
  EXPECT_THROW(cache.getOrCreate(key,
                                 []() -> std::string {
                                   throw Error(ErrorCode::CompileFailed, "p",
                                               "", "boom");
                                 }),
               Error);
  EXPECT_FALSE(cache.lookup(key));
}

TEST_F(DiskCacheTest, TruncatedAndCorruptEntriesAreRebuilt) {
  DiskCache cache(Dir);
  std::string key = hashHex("corrupt");
  std::string payload(10000, 'p');
  cache.store(key, payload);
  std::string path = cache.entryPath(key);
  std::string good = readRaw(path);

  int calls = 0;
  auto producer = [&] {
    ++calls;
    return payload;
  };
  DiskCache::LookupStatus status;

  // Truncated payload.
  writeRaw(path, good.substr(0, good.size() - 100));
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Corrupt);
  EXPECT_EQ(cache.getOrCreate(key, producer), payload);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(readRaw(path), good);

  // Truncated inside the header, and empty.
  writeRaw(path, good.substr(0, 20));
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Corrupt);
  writeRaw(path, "");
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Corrupt);

  // One flipped payload bit.
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 1;
  writeRaw(path, flipped);
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Corrupt);
  EXPECT_EQ(cache.getOrCreate(key, producer), payload);
  EXPECT_EQ(calls, 2);

  // A valid entry for another key copied over this one.
  std::string other = hashHex("other");
  cache.store(other, payload);
  writeRaw(path, readRaw(cache.entryPath(other)));
  EXPECT_FALSE(cache.lookup(key, &status));
  EXPECT_EQ(status, DiskCache::LookupStatus::Corrupt);
}

TEST_F(DiskCacheTest, ThreadsShareOneEntry) {
  DiskCache cache(Dir);
  std::string key = hashHex("threads");
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        EXPECT_EQ(cache.getOrCreate(key,
                                    [&] {
                                      ++calls;
                                      return std::string(4096, 't');
                                    }),
                  std::string(4096, 't'));
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls.load(), 1); // the key lock serialises producers
}

/// Several processes hammer the same keys: readers must only ever see whole
/// entries, and each key is produced once (flock across processes).
TEST_F(DiskCacheTest, ConcurrentProcesses) {
  const int kProcesses = 6, kKeys = 5, kRounds = 40;
  std::string counterDir = Dir + "/produced";
  fs::create_directories(counterDir);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      try {
        DiskCache cache(Dir + "/cache");
        for (int r = 0; r < kRounds; ++r) {
          int k = (r + p) % kKeys;
          std::string key = hashHex("key" + std::to_string(k));
          std::string expected(1000 + 997 * k, char('a' + k));
          std::string got = cache.getOrCreate(key, [&] {
            // Record who produced it: one file per production.
            std::ofstream(counterDir + "/" + std::to_string(k) + "." +
                          std::to_string(getpid()) + "." + std::to_string(r));
            usleep(2000);
            return expected;
          });
          bad += got != expected;
          // Rewrite entries concurrently too: rename keeps readers safe.
          if (r % 7 == 0)
            cache.store(key, expected);
        }
      } catch (...) {
        _exit(2);
      }
      _exit(bad ? 1 : 0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  int produced = 0;
  for (auto &entry : fs::directory_iterator(counterDir)) {
    (void)entry;
    ++produced;
  }
  EXPECT_EQ(produced, kKeys);
}

TEST(DiskCacheDirectory, EnvironmentOverrides) {
  std::string saved = getenv("FPX_CACHE_DIR") ? getenv("FPX_CACHE_DIR") : "";
  setenv("FPX_CACHE_DIR", "/x/fpx", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/x/fpx");
  unsetenv("FPX_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/xdg/fpx");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DiskCache::defaultDirectory(), "/home/u/.cache/fpx");
  if (!saved.empty())
    setenv("FPX_CACHE_DIR", saved.c_str(), 1);
}

} // namespace
