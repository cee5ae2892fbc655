//===- ConvertBench.cpp - CPU conversion speed of FPxNumerics -------------===//
//
// Prints one table: values/s on one core for each format, rounding mode and
// input type (fp32 through the integer encoder, bf16/fp16 through the 64K
// tables of fpx::num::Encoder, rs with precomputed random bits), and decode.
// Usage: fpx-bench-cpu-convert [elements (default 2^24)] [repeats (default 5)]
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Philox.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace fpx::num;

namespace {

/// Best-of-`repeats` throughput in values per second.
double measure(size_t n, int repeats, const std::function<void()> &fn) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return double(n) / best;
}

} // namespace

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t(1) << 24);
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;

  // Normally distributed activations, the realistic input of a quantizer.
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::vector<float> f32(n);
  std::vector<uint16_t> bf(n), hf(n);
  std::vector<uint32_t> rbits(n);
  for (size_t i = 0; i < n; ++i) {
    f32[i] = nd(rng);
    bf[i] = floatToBf16(f32[i], Rounding::RN, Overflow::ToInfOrNaN);
    hf[i] = floatToHalf(f32[i], Rounding::RN, Overflow::ToInfOrNaN);
    rbits[i] = philoxBits(7, i);
  }
  std::vector<uint8_t> out(n);
  std::vector<float> back(n);

  std::printf("FPxNumerics CPU conversion speed, %zu values, best of %d, one core\n\n", n, repeats);
  std::printf("| format | rounding | fp32 -> fmt | bf16 -> fmt | fp16 -> fmt | fmt -> fp32 |\n");
  std::printf("|---|---|---|---|---|---|\n");
  const Format *formats[] = {&e4m3fn(), &e5m2(), &e2m3fn(), &e3m2fn(), &e2m1fn(), &e8m0fnu()};
  unsigned sink = 0;
  for (const Format *f : formats) {
    for (Rounding r : {Rounding::RN, Rounding::RZ, Rounding::RS}) {
      if (r == Rounding::RS && (f == &e8m0fnu()))
        continue;
      double vf = 0, vb = 0, vh = 0, vd = 0;
      if (r == Rounding::RS) {
        vf = measure(n, repeats, [&] {
          encodeStochastic(*f, f32.data(), rbits.data(), out.data(), n, Overflow::SatFinite);
        });
      } else {
        Rounding rr = (f == &e8m0fnu() && r == Rounding::RN) ? Rounding::RP : r;
        Encoder enc(*f, rr, Overflow::SatFinite);
        vf = measure(n, repeats, [&] { enc.encode(f32.data(), out.data(), n); });
        vb = measure(n, repeats, [&] { enc.encodeBf16(bf.data(), out.data(), n); });
        vh = measure(n, repeats, [&] { enc.encodeFp16(hf.data(), out.data(), n); });
        vd = measure(n, repeats, [&] { enc.decode(out.data(), back.data(), n); });
        r = rr;
      }
      sink += out[n / 2];
      auto cell = [](double v) {
        static char buf[4][32];
        static int k = 0;
        char *b = buf[k++ % 4];
        if (v == 0)
          std::snprintf(b, 32, "-");
        else
          std::snprintf(b, 32, "%.0f M/s", v / 1e6);
        return b;
      };
      std::printf("| %s | %s | %s | %s | %s | %s |\n", f->name.c_str(), toString(r),
                  cell(vf), cell(vb), cell(vh), cell(vd));
    }
  }
  std::printf("\n(checksum %u)\n", sink);
  return 0;
}
