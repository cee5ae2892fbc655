#!/usr/bin/env python3
"""Spec-mutation smoke test: fpxc on broken specs must fail cleanly.

Takes the example, bench and GPU-test specs, applies a few random token
edits to each (replace a word by another format/rounding/layout/number,
delete a token or a short span, insert punctuation), compiles the result
for a random target, and requires fpxc either to succeed or to exit 1 with
a located diagnostic (`FILE:LINE:COL: error:`), never a signal, an LLVM
abort, an assertion or an unlocated failure. Deterministic for a seed.

    test/fuzz/mutate_specs.py FPXC REPO [--seed N] [--count N]
"""
import argparse
import pathlib
import random
import re
import subprocess
import sys
import tempfile

WORDS = ["e2m1fn", "e4m3fn", "e5m2", "e3m2fn", "e8m0fnu", "rs", "rn", "rz", "floor",
         "ceil", "rceil", "amax", "fp4x2", "fp6_planes", "blocked_128x4", "f32", "bf16",
         "f16", "i8", "i64", "?", "0", "-1", "1", "3", "7", "16", "32", "128", "4096",
         "99999999999", "tensor", "fpx.quantize", "fpx.hadamard", "global_scale",
         "fpx.global_scale", "fpx.dequantize", "?xf32", "3xf32", "?x?x?xbf16"]
TARGETS = ["sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120a"]
CRASH = re.compile(r"LLVM ERROR|Assertion|UNREACHABLE|Stack dump|Segmentation|terminate called")
LOCATED = re.compile(r":\d+:\d+: error: ")


def mutate(rng, text):
    for _ in range(rng.randint(1, 3)):
        toks = list(re.finditer(r"[A-Za-z_0-9?]+", text))
        if not toks:
            break
        m = rng.choice(toks)
        r = rng.random()
        if r < 0.5:
            text = text[:m.start()] + rng.choice(WORDS) + text[m.end():]
        elif r < 0.7:
            text = text[:m.start()] + text[m.end():]
        elif r < 0.85:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice('{}()<>[],:=%@"x*') + text[i:]
        else:
            i = rng.randrange(len(text))
            text = text[:i] + text[i + rng.randint(1, 20):]
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fpxc")
    ap.add_argument("repo")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400)
    a = ap.parse_args()
    repo = pathlib.Path(a.repo)
    specs = sorted((repo / "bench/quantize/specs").glob("*.mlir")) + \
        sorted((repo / "test/gpu/specs").glob("*.mlir")) + \
        sorted((repo / "docs/examples").rglob("*.mlir"))
    texts = [p.read_text() for p in specs]
    rng = random.Random(a.seed)
    failures = compiled = 0
    with tempfile.TemporaryDirectory() as tmp:
        spec = pathlib.Path(tmp) / "mutated.mlir"
        for n in range(a.count):
            text = mutate(rng, rng.choice(texts))
            spec.write_text(text)
            target = rng.choice(TARGETS)
            p = subprocess.run([a.fpxc, "compile", str(spec), "--target", target,
                                "-o", str(pathlib.Path(tmp) / "out")],
                               capture_output=True, text=True, timeout=120)
            compiled += p.returncode == 0
            ok = p.returncode == 0 or (p.returncode == 1 and LOCATED.search(p.stderr)
                                       and not CRASH.search(p.stderr))
            if not ok:
                failures += 1
                keep = pathlib.Path(tempfile.gettempdir()) / f"fpxc-mutant-{a.seed}-{n}.mlir"
                keep.write_text(text)
                print(f"FAIL #{n} ({target}): exit {p.returncode}; spec kept at {keep}\n"
                      f"{p.stderr[-600:]}", file=sys.stderr)
    print(f"{a.count} mutated specs: {compiled} compiled, {a.count - compiled - failures} "
          f"refused with a located error, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
