#!/usr/bin/env python3
"""Builds an AOT kernel bundle for the `fpxc` package with fpxc.

For every configuration of the high-level API that fpxc lowers (MXFP8 rows
and columns, MXFP6 planes and interleaved, MXFP4, NVFP4 one- and two-level, FP8 per-tensor and
1x128; floor/ceil/even/rceil; rn/rz/rs; row-major or blocked scales;
bf16/f16/f32 inputs; 2-D, and 3-D expert weights for column blocks; a
fused random Hadamard transform (hadamard=N, bundled seeds); 2-D blocks
16x16, 32x32, 128x128; fpx.dequantize of every format, packing, scale
layout and output dtype; fpx.hadamard; fpxc.linear's weight-only GEMMs;
fpxc.scaled_mm's fp8 GEMMs and fpxc.grouped_mm's grouped ones, for the
targets that have them) this
writes a kernel spec, compiles it for each target and stores the artifact
as OUT/<target>/<name>.{json,ptx[,cubin]}. Each artifact's metadata gets an
"options" object (the runtime's validator accepts it; docs/artifact.md)
describing the call it serves, and OUT/<target>/index.json lists them:

    {"format": "fpx-bundle", "version": 3, "target": "sm_90a", "set": "core",
     "fpxc": "fpxc X.Y.Z (MLIR/LLVM 22)", "commit": "60f3eda1b2c3[-dirty]",
     "artifacts": [{"file": "q_....json", "function": "q_...",
                    "options": {...}, "call": {...}}]}

`fpxc` is `fpxc --version` of the compiler that built it, `commit` the
checkout's; `options` is the dispatch key (fpxc/bundle.py,
fpxc/ops.py:_bundle_options); `call` is the fpxc.quantize(...) keyword set
that reaches it (the GPU tests walk the index and compare every entry with
the CPU reference).

The set the package ships is a build output (python-bindings/Bundle.cmake,
target fpx-bundle: build/python-bindings/kernels), never kept in git:

    ninja -C build fpx-bundle                                          # = --set core --targets sm_90a,sm_100a --strict
    python3 python-bindings/tools/build_bundle.py                      # full set, sm_90a -> python-bindings/kernels-full/
    python3 python-bindings/tools/build_bundle.py --targets sm_90a,sm_100a,sm_120a,sm_80 --cubin
    python3 python-bindings/tools/build_bundle.py --check DIR [--sample N]   # DIR == what fpxc compiles now?
    python3 python-bindings/tools/build_bundle.py --op linear,scaled_mm --out DIR   # some ops of the full set

A configuration fpxc rejects is reported and left out (exit status 0
unless --strict); the package falls back to the CPU reference for it.

The words (high-level formats, their element formats and MLIR types, scale
rules, packings) are the numerics core's vocabulary, read from
`fpxc vocabulary --json`; this script keeps none of its own.
"""

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

IN_TYPES = {"bf16": "bf16", "f16": "f16", "f32": "f32"}
# Set from fpxc's vocabulary by load_vocabulary():
# high-level format -> (element format, scale kind, element bits, MLIR type of
# unpacked codes);
FORMATS = {}
# packing word of the API -> the dialect's #fpx.layout keyword (those the
# dialect has; "bytes" is spelled by leaving `packing` out);
PACKING_LAYOUT = {}
# the E8M0 rules fpxc lowers; the rule of non-E8M0 scales (amax);
RULES = ()
AMAX_RULE = None
# scale kind -> MLIR scale element type.
SCALE_TYPES = {}
# element format name or alias -> (element format, bits, MLIR type): the
# weight formats that are no scheme (FP6-LLM's "fp6_e3m2", "fp5_e2m2").
ELEMENT_FORMATS = {}


def load_vocabulary(fpxc):
    """Reads the numerics vocabulary from `fpxc vocabulary --json` into the
    tables above."""
    global FORMATS, PACKING_LAYOUT, RULES, AMAX_RULE, SCALE_TYPES, ELEMENT_FORMATS
    p = subprocess.run([fpxc, "vocabulary", "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{fpxc} vocabulary --json failed: {(p.stderr or p.stdout).strip()}")
    v = json.loads(p.stdout)
    mlir_type = {f["name"]: f["mlir_type"] for f in v["formats"]}
    FORMATS = {s["name"]: (s["elem"], s["scale_kind"], s["bits"], mlir_type[s["elem"]])
               for s in v["schemes"]}
    ELEMENT_FORMATS = {w: (f["name"], f["bits"], f["mlir_type"])
                       for f in v["formats"] for w in [f["name"]] + f["aliases"]}
    PACKING_LAYOUT = {p["api"]: p["ir"] for p in v["packings"] if p["ir"]}
    RULES = tuple(r["api"] for r in v["scale_rules"] if r["pow2"] and r["ir"])
    AMAX_RULE = next(r["ir"] for r in v["scale_rules"] if not r["pow2"] and r["ir"])
    SCALE_TYPES = {k["name"]: k["mlir_type"] for k in v["scale_kinds"] if k["mlir_type"]}
# Version 2: NVFP4 quantize kernels return the global scale g, not the amax.
# Version 3: NVFP4 dequantize kernels take g, not the amax.
# Version 4: MX (E8M0) quantize kernels mark a block holding inf with the NaN
# scale 0xFF and NaN elements (issue 35); the saturating ones carry
# "nonfinite": "saturate". fpx/bundle.py skips the entries of older bundles
# whose meaning changed.
bundle_version = 4


def config(format, block, rule="floor", rounding="rn", scale_layout="row_major",
           packing="none", input_dtype="bf16", rank=2, global_scale=True, hadamard=0,
           hadamard_seed=0, amax_given=False, amax_per_matrix=False, amax_out=False,
           nonfinite="nan"):
    """One bundle entry: the dispatch options and the fpx.quantize kwargs
    (amax_given: the NVFP4 cast alone, called with amax=, the tensor amax as
    the kernel's second input; amax_per_matrix: a rank-3 batch in one launch,
    one amax per matrix as the second input, g per matrix the third output;
    amax_out: with amax_given, also max |x| (of the transform) as the last
    output, reduced by the cast: return_amax=True, delayed scaling;
    nonfinite: "saturate" for the MX casts that keep a finite scale for inf,
    a key of their own)."""
    elem, kind, bits, _ = FORMATS[format]
    if kind in ("nvfp4", "fp32"):
        rule = "floor"  # what fpx.ops._resolve normalises these to
    options = {"op": "quantize", "format": format, "block": list(block), "rule": rule,
               "rounding": rounding, "scale_layout": scale_layout, "packing": packing,
               "input_dtype": input_dtype, "rank": rank}
    if kind == "nvfp4":
        options["global_scale"] = bool(global_scale)
    call = {"format": format, "block": list(block), "rounding": rounding,
            "scale_layout": scale_layout}
    if kind == "e8m0":
        call["rule"] = rule
    if packing != "none":
        call["packing"] = packing
    if kind == "nvfp4":
        call["global_scale"] = bool(global_scale)
    if hadamard:
        # The fused random Hadamard transform; its seed is a compile-time
        # attribute of the kernel, so it is part of the key.
        options["hadamard"] = call["hadamard"] = int(hadamard)
        options["hadamard_seed"] = call["hadamard_seed"] = int(hadamard_seed)
    if amax_given:
        options["amax_given"] = True
    if amax_per_matrix:
        options["amax_given"] = options["amax_per_matrix"] = True
    if amax_out:
        # (the package asks for the cast returning the amax only with one given)
        assert amax_given or amax_per_matrix, "amax_out needs a given amax"
        options["amax_out"] = call["return_amax"] = True
    if nonfinite != "nan":
        assert kind == "e8m0", "only MX scales have the nonfinite choice"
        options["nonfinite"] = call["nonfinite"] = nonfinite
    return {"options": options, "call": call}


# Scale tensor word of a dequantize -> MLIR scale type.
DQ_SCALE_TYPES = {"e8m0": "f8E8M0FNU", "ue4m3": "f8E4M3FN", "f32": "f32", "bf16": "bf16",
                  "f16": "f16"}
DQ_OUT = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}


def dq_config(format, block, scale_layout="row_major", packing="none", output_dtype="bf16",
              rank=2, scale_dtype=None, global_scale=True, global_per_matrix=False):
    """One dequantize entry: the dispatch options (fpx/ops.py:_dequantize_options)
    and the fpx.dequantize kwargs (the GPU tests make matching data with
    fpx.quantize(format, block, scale_layout, packing)); global_per_matrix:
    NVFP4 of a rank-3 batch with one g per matrix, one launch."""
    elem, kind, bits, _ = FORMATS[format]
    if scale_dtype is None:
        scale_dtype = {"e8m0": "e8m0", "nvfp4": "ue4m3"}.get(kind, "f32")
    options = {"op": "dequantize", "format": format, "block": list(block),
               "scale_layout": scale_layout, "packing": packing, "scale_dtype": scale_dtype,
               "output_dtype": output_dtype, "rank": rank}
    call = {"format": format, "block": list(block), "scale_layout": scale_layout,
            "dtype": DQ_OUT[output_dtype]}
    if packing != "none":
        call["packing"] = packing
    if scale_dtype in ("bf16", "f16"):
        call["scale_dtype"] = DQ_OUT[scale_dtype]
    if kind == "nvfp4":
        options["global_scale"] = call["global_scale"] = bool(global_scale)
    if global_per_matrix:
        options["global_per_matrix"] = True
    return {"options": options, "call": call}


# The weight-only linear formats fpxc lowers to a fused dequant GEMM, as
# fpxc.linear's WEIGHT_FORMATS has them (python-bindings/fpxc/linear.py; a
# test keeps the two equal): format -> (scale block over the (N, K) weight,
# GEMM weight layout). A new format is one entry here and one there.
# format -> (scale block, weight layout, scale dtype): fpxc/linear.py's
# WEIGHT_FORMATS (a test keeps the two equal).
LINEAR_FORMATS = {"fp8_e4m3": ((1, 0), "mma_tiles", "f32"),
                  "fp8_e5m2": ((1, 0), "mma_tiles", "f32"),
                  "mxfp8_e4m3": ((1, 32), "mma_tiles", "e8m0"),
                  "mxfp8_e5m2": ((1, 32), "mma_tiles", "e8m0"),
                  "mxfp4": ((1, 32), "mma_tiles", "e8m0"),
                  "nvfp4": ((1, 16), "mma_tiles", "ue4m3"),
                  "mxfp6_e2m3": ((1, 32), "mma_tiles", "e8m0"),
                  "mxfp6_e3m2": ((1, 32), "mma_tiles", "e8m0"),
                  "fp6_e3m2": ((1, 0), "mma_tiles", "f32"),
                  "fp5_e2m2": ((1, 0), "mma_tiles", "f32")}


def linear_config(format, act):
    """A weight-only linear y = x * dequantize(w)^T: x (M, K) and y in `act`
    (bf16 or f16), w (N, K) packed in the format's GEMM layout with its
    scales (fpxc/linear.py:bundle_options writes the same dicts)."""
    block, layout, scale = LINEAR_FORMATS[format]
    return {"options": {"op": "linear", "format": format, "block": list(block),
                        "weight_layout": layout, "scale_dtype": scale, "input_dtype": act,
                        "output_dtype": act, "rank": 2},
            "call": {"format": format, "dtype": DQ_OUT[act]}}


# The formats whose f16-activation linear kernels the core set ships too
# (the wheel's size: each kernel is 60-90 KB of PTX a target; the block-scaled
# formats' f16 kernels are in the full set, and the core's f16 calls of those
# formats take the dequantize fallback with its warning).
LINEAR_CORE_F16 = ("fp8_e4m3", "fp8_e5m2")
# The formats whose linear kernels are in the full set only, bf16 ones too
# (the core set's PTX is at its ceiling, test_bundle.py; 75-80 KB a kernel):
# the fp6 and fp5 weights. The package's core calls of these take the
# dequantize fallback with its warning; a full bundle (FPX_KERNEL_DIR) has
# their kernels.
LINEAR_FULL_ONLY = ("mxfp6_e2m3", "mxfp6_e3m2", "fp6_e3m2", "fp5_e2m2")


def linear_configurations(which):
    """fpxc.linear: every format of LINEAR_FORMATS with bf16 and f16
    activations in the full set; the core set has the bf16 kernels of the
    formats not in LINEAR_FULL_ONLY and LINEAR_CORE_F16's f16 ones."""
    if which == "full":
        return [linear_config(fmt, act) for fmt in LINEAR_FORMATS for act in ("bf16", "f16")]
    return [linear_config(fmt, act) for fmt in LINEAR_FORMATS for act in ("bf16", "f16")
            if fmt not in LINEAR_FULL_ONLY and (act == "bf16" or fmt in LINEAR_CORE_F16)]


# fpxc.scaled_mm (python-bindings/fpxc/scaled.py): fp8 A (M, K) x B (N, K),
# K-major, fp32 scales per tensor, per row or blockwise, or MXFP8's e8m0 1x32
# scales on both sides, fp32 accumulation; or NVFP4 x NVFP4 (e2m1 codes two
# a byte, e4m3 1x16 scales and the fp32 global scales).
# fpx.scaled_matmul lowers it on the targets with wgmma only: its entries
# are compiled for these targets (a config's "targets").
SCALED_MM_TARGETS = ("sm_90a",)
SCALED_MM_FORMATS = ("fp8_e4m3", "fp8_e5m2")
# scale kind -> (MLIR scale type, scaling block): fpxc/scaled.py's KERNEL_SCALES.
SCALED_MM_SCALES = {"tensor": ("tensor<1x1xf32>", "*, *"), "row": ("tensor<?x1xf32>", "1, *"),
                    "1x128": ("tensor<?x?xf32>", "1, 128"),
                    "128x128": ("tensor<?x?xf32>", "128, 128"),
                    "mx": ("tensor<?x?xf8E8M0FNU>", "1, 32"),
                    "nvfp4": ("tensor<?x?xf8E4M3FN>", "1, 16"),
                    "mx_blocked": ("tensor<?x?xf8E8M0FNU>", "1, 32"),
                    "nvfp4_blocked": ("tensor<?x?xf8E4M3FN>", "1, 16")}
# The kinds whose scales are blocked 128x4 (fpx.scaled_matmul's
# lhs/rhs_scale_layout), and the family of each (fpxc/scaled.py's FAMILY).
SCALED_MM_FAMILY = {"mx_blocked": "mx", "nvfp4_blocked": "nvfp4"}
# scale kind -> (scaling rule, MLIR scale element type) where not (amax, f32)
# (None: amax).
SCALED_MM_SCALE_TYPES = {"mx": ("floor", "f8E8M0FNU"), "nvfp4": (None, "f8E4M3FN"),
                         "mx_blocked": ("floor", "f8E8M0FNU"),
                         "nvfp4_blocked": (None, "f8E4M3FN")}
# scale kind -> the fpx.quantize block that makes it (the GPU tests' call).
SCALED_MM_BLOCKS = {"tensor": [0, 0], "row": [1, 0], "1x128": [1, 128], "128x128": [128, 128],
                    "mx": [1, 32], "nvfp4": [1, 16], "mx_blocked": [1, 32],
                    "nvfp4_blocked": [1, 16]}
# The (a, b) scale kinds of the kernels: fpxc/scaled.py's KERNEL_PAIRS. The
# core set has SCALED_MM_CORE_PAIRS: tensor, row, DeepSeek-V3's 1x128 x
# 128x128 blockwise, MXFP8 (e4m3 x e4m3: 2 kernels of about 100 KB of
# sm_90a PTX) and NVFP4 (2 kernels, 0.19 MB; the core bundle's ceiling in
# test_bundle.py holds them), and both with blocked 128x4 scales on both
# sides, bf16 out only (SCALED_MM_CORE_BF16_ONLY: 0.2 MB).
SCALED_MM_PAIRS = (("tensor", "tensor"), ("row", "row"), ("1x128", "128x128"),
                   ("1x128", "1x128"), ("mx", "mx"), ("nvfp4", "nvfp4"),
                   ("mx_blocked", "mx_blocked"), ("nvfp4_blocked", "nvfp4_blocked"))
SCALED_MM_CORE_PAIRS = (("tensor", "tensor"), ("row", "row"), ("1x128", "128x128"),
                        ("mx", "mx"), ("nvfp4", "nvfp4"), ("mx_blocked", "mx_blocked"),
                        ("nvfp4_blocked", "nvfp4_blocked"))
SCALED_MM_CORE_BF16_ONLY = ("mx_blocked", "nvfp4_blocked")
# The bias dtypes of the kernels adding the bias in their epilogue: none until
# fpx.scaled_matmul's lowering takes its bias operand (fpxc.scaled_mm adds it
# after the GEMM meanwhile, and takes these kernels once they are bundled:
# adding ("bf16", "f32") here is the switch).
SCALED_MM_BIAS = ()


def scaled_mm_config(a_format, b_format, a_scale, b_scale, out, bias=None):
    """An fp8 GEMM y = (a * sa) (b * sb)^T with a pair of SCALED_MM_PAIRS
    (fpxc.scaled_mm broadcasts a per-tensor scale beside a per-row one), y
    in `out` (fpxc/scaled.py:bundle_options writes the same dicts); `bias`:
    the dtype of a bias the kernel adds."""
    options = {"op": "scaled_mm", "a_format": a_format, "b_format": b_format,
               "a_scale": a_scale, "b_scale": b_scale, "output_dtype": out}
    # (the fpx.quantize call making the operand: MX kinds name the MX format)
    def quantized(fmt, kind):
        fam = SCALED_MM_FAMILY.get(kind, kind)
        q = {"format": "mx" + fmt if fam == "mx" else fmt, "block": SCALED_MM_BLOCKS[kind]}
        if kind in SCALED_MM_FAMILY:
            q["scale_layout"] = "blocked"
        return q
    call = {"a": quantized(a_format, a_scale), "b": quantized(b_format, b_scale),
            "out_dtype": DQ_OUT[out]}
    if bias is not None:
        options["bias"] = bias
        call["bias"] = DQ_OUT[bias]
    return {"options": options, "call": call, "targets": SCALED_MM_TARGETS}


def scaled_mm_configurations(which):
    """fpxc.scaled_mm: e4m3 x e4m3 with bf16 and f32 results in the core set
    (about 85-100 KB of PTX each; SCALED_MM_CORE_PAIRS), every pair of fp8
    formats and of SCALED_MM_PAIRS in the full one."""
    fmts = SCALED_MM_FORMATS if which == "full" else SCALED_MM_FORMATS[:1]
    pairs = SCALED_MM_PAIRS if which == "full" else SCALED_MM_CORE_PAIRS
    # (NVFP4's codes are one format: "nvfp4" x "nvfp4", its own word)
    def nv(kind):
        return SCALED_MM_FAMILY.get(kind, kind) == "nvfp4"

    def outs(kind):
        core_bf16 = which != "full" and kind in SCALED_MM_CORE_BF16_ONLY
        return ("bf16",) if core_bf16 else ("bf16", "f32")

    return [scaled_mm_config(a, b, sa, sb, out, bias)
            for sa, sb in pairs
            for a in (("nvfp4",) if nv(sa) else fmts)
            for b in (("nvfp4",) if nv(sb) else fmts)
            for out in outs(sa) for bias in (None,) + SCALED_MM_BIAS]


# fpxc.grouped_mm (python-bindings/fpxc/grouped.py): fp8 A (M, K) x B (G, N,
# K) with fp32 row scales (M, 1) and (G, N, 1) and the int32 group ends,
# fpx.grouped_matmul's one lowered form (sm_90a, as fpx.scaled_matmul's). Its
# entries are keyed as scaled_mm's with op "grouped_mm" (both scales "row").
# The core set has e4m3 x e4m3 with a bf16 result (GROUPED_MM_CORE_OUTS:
# the core bundle's ceiling in test_bundle.py leaves no room for the f32
# one); the full set every pair of fp8 formats, bf16 and f32.
GROUPED_MM_CORE_OUTS = ("bf16",)


def grouped_mm_config(a_format, b_format, out):
    """A grouped GEMM y[rows of g] = (a * sa)[rows of g] (b[g] * sb[g])^T, y in
    `out` (fpxc/grouped.py's _plan builds the same key)."""
    options = {"op": "grouped_mm", "a_format": a_format, "b_format": b_format,
               "a_scale": "row", "b_scale": "row", "output_dtype": out}
    call = {"a": {"format": a_format, "block": SCALED_MM_BLOCKS["row"]},
            "b": {"format": b_format, "block": SCALED_MM_BLOCKS["row"]},
            "out_dtype": DQ_OUT[out]}
    return {"options": options, "call": call, "targets": SCALED_MM_TARGETS}


def grouped_mm_configurations(which):
    """fpxc.grouped_mm: e4m3 x e4m3 in the core set (GROUPED_MM_CORE_OUTS),
    every pair of fp8 formats with bf16 and f32 results in the full one."""
    full = which == "full"
    fmts = SCALED_MM_FORMATS if full else SCALED_MM_FORMATS[:1]
    return [grouped_mm_config(a, b, out) for a in fmts for b in fmts
            for out in (("bf16", "f32") if full else GROUPED_MM_CORE_OUTS)]


def for_target(c, target):
    """Whether configuration `c` is compiled for `target` (all targets but
    where the config names its own)."""
    return target in c.get("targets", (target,))


def hadamard_config(block, seed, dtype):
    """A standalone fpx.hadamard(x, block, seed) (random signs)."""
    return {"options": {"op": "hadamard", "block": block, "seed": seed, "random_signs": True,
                        "input_dtype": dtype},
            "call": {"block": block, "seed": seed}}


def swizzle_config(groups):
    """A standalone fpx.swizzle_scales of byte scales to the blocked 128x4
    layout, of one matrix or (groups) per group of rows."""
    return {"options": {"op": "swizzle", "groups": groups}, "call": {"grouped": groups}}


# The Hadamard seeds bundled (the kernel's seed is compile-time): 0 is
# fpx.quantize's default hadamard_seed; other seeds run the CPU reference
# with a one-time warning.
HADAMARD_SEEDS = {"core": (0,), "full": (0, 1)}


def configurations(which):
    """The configurations of a set: "full" (everything lowered) or "core"
    (bf16 inputs, floor/rceil, rn plus three rs kernels; small enough to ship
    in the wheel: about 1.2 MB of PTX per target)."""
    full = which == "full"
    ins = ("bf16", "f16", "f32") if full else ("bf16",)
    rules = RULES if full else ("floor", "rceil")
    rnds = ("rn", "rs") if full else ("rn",)
    out = []
    for dt in ins:
        for fmt in ("mxfp8_e4m3", "mxfp8_e5m2"):
            for rule in rules:
                for layout in ("row_major", "blocked"):
                    for rnd in (("rn", "rz", "rs") if full else ("rn",)):
                        out.append(config(fmt, (1, 32), rule, rnd, layout, input_dtype=dt))
                # Column blocks: transposed (column-major) output, 2-D and
                # 3-D; scales row-major or blocked (each matrix's own tiles).
                for rnd in rnds:
                    out.append(config(fmt, (32, 1), rule, rnd, input_dtype=dt))
                for layout in ("row_major", "blocked"):
                    out.append(config(fmt, (32, 1), rule, "rn", layout, input_dtype=dt, rank=3))
                out.append(config(fmt, (32, 1), rule, "rn", "blocked", input_dtype=dt))
        for fmt in ("mxfp6_e2m3", "mxfp6_e3m2"):
            for rule in rules:
                for layout in ("row_major", "blocked"):
                    for rnd in rnds:
                        out.append(config(fmt, (1, 32), rule, rnd, layout, "planes", dt))
                    # torchao #1810's 4+2 (its pack_uint6_pytorch layout)
                    out.append(config(fmt, (1, 32), rule, "rn", layout, "interleaved", dt))
                if full:
                    out.append(config(fmt, (1, 32), rule, "rn", "row_major", "contiguous", dt))
        for rule in rules:
            for layout in ("row_major", "blocked"):
                for rnd in rnds:
                    out.append(config("mxfp4", (1, 32), rule, rnd, layout, "fp4x2", dt))
            # Column blocks (the cast of x^T for the backward pass), packed
            # along the column: transposed output, 2-D and 3-D.
            for rnd in rnds:
                out.append(config("mxfp4", (32, 1), rule, rnd, "row_major", "fp4x2", dt))
            for layout in ("row_major", "blocked"):
                out.append(config("mxfp4", (32, 1), rule, "rn", layout, "fp4x2", dt, rank=3))
            out.append(config("mxfp4", (32, 1), rule, "rn", "blocked", "fp4x2", dt))
        for gs in (True, False):
            for layout in ("row_major", "blocked"):
                for rnd in rnds:
                    out.append(config("nvfp4", (1, 16), "floor", rnd, layout, "fp4x2", dt,
                                      global_scale=gs))
        for layout in ("row_major", "blocked"):
            out.append(config("nvfp4", (16, 1), "floor", "rn", layout, "fp4x2", dt,
                              global_scale=False))
        for fmt in ("fp8_e4m3", "fp8_e5m2"):
            for rnd in rnds:
                out.append(config(fmt, (0, 0), rounding=rnd, input_dtype=dt))
                out.append(config(fmt, (1, 0), rounding=rnd, input_dtype=dt))  # per row
                out.append(config(fmt, (1, 128), rounding=rnd, input_dtype=dt))
                # 128x1: the 1x128 cast of x^T (weight gradients), transposed
                out.append(config(fmt, (128, 1), rounding=rnd, input_dtype=dt))
        if full:
            # MX casts that keep today's saturation for inf (nonfinite=
            # "saturate"): rows and columns, floor and rceil, rn, row-major.
            for fmt in ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4"):
                pk = {"mxfp4": "fp4x2", "mxfp6_e2m3": "planes", "mxfp6_e3m2": "planes"}.get(fmt, "none")
                for rule in ("floor", "rceil"):
                    out.append(config(fmt, (1, 32), rule, "rn", "row_major", pk, dt,
                                      nonfinite="saturate"))
                    if fmt.startswith("mxfp6"):
                        continue  # (no column lowering of fp6 bytes is bundled)
                    out.append(config(fmt, (32, 1), rule, "rn", "row_major", pk, dt,
                                      nonfinite="saturate"))
        if not full:  # the stochastic-rounding kernels training recipes use
            out.append(config("mxfp8_e4m3", (1, 32), "floor", "rs", input_dtype=dt))
            out.append(config("nvfp4", (1, 16), "floor", "rs", "row_major", "fp4x2", dt))
            out.append(config("mxfp4", (1, 32), "floor", "rs", "row_major", "fp4x2", dt))
        # NVFP4 with a given tensor amax (delayed scaling): the cast alone,
        # and the cast that also returns this input's amax (one read).
        for layout in ("row_major", "blocked"):
            for rnd in ("rn", "rs"):
                for ra in (False, True):
                    out.append(config("nvfp4", (1, 16), "floor", rnd, layout, "fp4x2", dt,
                                      amax_given=True, amax_out=ra))
        # A batch of matrices (experts) with a global scale each, one launch;
        # and the same returning each matrix's amax (delayed scaling).
        for rnd in ("rn", "rs"):
            for ra in (False, True):
                out.append(config("nvfp4", (1, 16), "floor", rnd, "row_major", "fp4x2", dt,
                                  rank=3, amax_per_matrix=True, amax_out=ra))
        out.extend(hadamard_configurations(which, dt))
        out.extend(block2d_configurations(which, dt))
        out.extend(hadamard_op_configurations(which, dt))
    out.extend(dequantize_configurations(which))
    out.extend(swizzle_config(g) for g in (False, True))
    out.extend(linear_configurations(which))
    out.extend(scaled_mm_configurations(which))
    out.extend(grouped_mm_configurations(which))
    return out


def hadamard_configurations(which, dt):
    """fpx.quantize(..., hadamard=N, hadamard_seed=S): the transform fused
    into the cast (and NVFP4's amax) kernels; row blocks only (fpxc has no
    fused transform for column or 2-D blocks). The NVFP4 training recipe is
    NVFP4 + 16-point RHT + rs."""
    full = which == "full"
    out = []
    for seed in HADAMARD_SEEDS[which]:
        for gs in ((True, False) if full else (True,)):
            for layout in (("row_major", "blocked") if full else ("row_major",)):
                for rnd in ("rn", "rs"):
                    out.append(config("nvfp4", (1, 16), "floor", rnd, layout, "fp4x2", dt,
                                      global_scale=gs, hadamard=16, hadamard_seed=seed))
        # The training recipe with a given (delayed) amax: the cast alone, and
        # the cast returning the amax of this input's transform too.
        for ra in (False, True):
            out.append(config("nvfp4", (1, 16), "floor", "rs", "row_major", "fp4x2", dt,
                              hadamard=16, hadamard_seed=seed, amax_given=True, amax_out=ra))
        for rule in (RULES if full else ("floor", "rceil")):
            for h in ((16, 32) if full else (32,)):
                out.append(config("mxfp4", (1, 32), rule, "rn", "row_major", "fp4x2", dt,
                                  hadamard=h, hadamard_seed=seed))
            if full:
                out.append(config("mxfp4", (1, 32), rule, "rs", "row_major", "fp4x2", dt,
                                  hadamard=32, hadamard_seed=seed))
            if full and rule in ("floor", "rceil"):
                for fmt in ("mxfp8_e4m3", "mxfp8_e5m2"):
                    for h in (16, 128):
                        out.append(config(fmt, (1, 32), rule, "rn", "row_major", input_dtype=dt,
                                          hadamard=h, hadamard_seed=seed))
        if not full:
            out.append(config("mxfp8_e4m3", (1, 32), "rceil", "rn", input_dtype=dt,
                              hadamard=32, hadamard_seed=seed))
    return out


def block2d_configurations(which, dt):
    """2-D blocks [Br, Bc]: NVFP4 16x16 weights (one- and two-level, rn and
    rs), fp8 128x128 (DeepSeek-V3 weights; 2-D and 3-D expert weights),
    MXFP8 32x32. Row-major scales only (fpxc has no blocked 2-D layout)."""
    full = which == "full"
    out = []
    for gs in (True, False):
        for rnd in ("rn", "rs"):
            out.append(config("nvfp4", (16, 16), "floor", rnd, "row_major", "fp4x2", dt,
                              global_scale=gs))
    out.append(config("nvfp4", (16, 16), "floor", "rn", "row_major", "fp4x2", dt, rank=3,
                      global_scale=False))
    for fmt in (("fp8_e4m3", "fp8_e5m2") if full else ("fp8_e4m3",)):
        for rank in (2, 3):
            out.append(config(fmt, (128, 128), input_dtype=dt, rank=rank))
    for fmt in (("mxfp8_e4m3", "mxfp8_e5m2") if full else ("mxfp8_e4m3",)):
        for rule in (RULES if full else ("floor", "rceil")):
            out.append(config(fmt, (32, 32), rule, input_dtype=dt))
        if full:
            out.append(config(fmt, (32, 32), "rceil", "rs", input_dtype=dt))
            out.append(config(fmt, (32, 32), "rceil", input_dtype=dt, rank=3))
    return out


def hadamard_op_configurations(which, dt):
    """fpx.hadamard(x, block, seed) with random signs on its own."""
    sizes = (16, 32, 128) if which == "full" else (16, 32)
    return [hadamard_config(n, seed, dt) for seed in HADAMARD_SEEDS[which] for n in sizes]


def dequantize_configurations(which):
    """fpx.dequantize: every format, packing and scale layout fpxc lowers
    (row blocks [1, N], per-row [1, *], per-tensor, per-matrix of 3-D),
    f32/bf16/f16 outputs (core: bf16). The scale rule does not matter to a
    dequantize. 3-D row-block data runs the 2-D kernel on the (B*M, K) view."""
    full = which == "full"
    outs = ("bf16", "f32", "f16") if full else ("bf16",)
    out = []
    for o in outs:
        for fmt in ("mxfp8_e4m3", "mxfp8_e5m2"):
            for layout in ("row_major", "blocked"):
                out.append(dq_config(fmt, (1, 32), layout, output_dtype=o))
        for fmt in ("mxfp6_e2m3", "mxfp6_e3m2"):
            for packing in (("planes", "interleaved", "contiguous", "bytes") if full
                            else ("planes", "interleaved")):
                for layout in ("row_major", "blocked"):
                    out.append(dq_config(fmt, (1, 32), layout, packing, o))
        for packing in (("fp4x2", "bytes") if full else ("fp4x2",)):
            for layout in ("row_major", "blocked"):
                out.append(dq_config("mxfp4", (1, 32), layout, packing, o))
        for gs in (True, False):
            for layout in ("row_major", "blocked"):
                out.append(dq_config("nvfp4", (1, 16), layout, "fp4x2", o, global_scale=gs))
        # A batch of matrices (experts) with a g each, one launch.
        out.append(dq_config("nvfp4", (1, 16), "row_major", "fp4x2", o, rank=3,
                             global_per_matrix=True))
        for fmt in (("fp8_e4m3", "fp8_e5m2") if full else ("fp8_e4m3",)):
            for sdt in (("f32", "bf16", "f16") if full else ("f32",)):
                out.append(dq_config(fmt, (1, 128), output_dtype=o, scale_dtype=sdt))
                out.append(dq_config(fmt, (1, 0), output_dtype=o, scale_dtype=sdt))
            out.append(dq_config(fmt, (0, 0), output_dtype=o))
            out.append(dq_config(fmt, (0, 0), output_dtype=o, rank=3))
    return out


def _blk(block):
    br, bc = block
    if br == 0 and bc == 0:
        return "t"
    if bc == 1 and br > 1:
        return f"c{br}"
    if br == 1:
        return f"r{bc}" if bc else "row"
    return f"b{br}x{bc}"


PACK_TAG = {"planes": "pl", "interleaved": "il", "contiguous": "p24", "bytes": "b8"}


def name_of(options):
    o = options
    if o["op"] == "hadamard":
        return f"h_{o['input_dtype']}_n{o['block']}_s{o['seed']}"
    if o["op"] == "swizzle":
        return "sw_groups" if o["groups"] else "sw"
    if o["op"] == "linear":
        return f"wo_{o['format']}_{o['input_dtype']}_{_blk(o['block'])}_{o['weight_layout']}"
    if o["op"] == "scaled_mm":
        bias = f"_bias{o['bias']}" if o.get("bias") else ""
        if o["a_scale"] == "nvfp4":
            return f"smm_nvfp4_{o['output_dtype']}{bias}"
        return (f"smm_{o['a_format'][4:]}_{o['b_format'][4:]}_{o['a_scale']}_{o['b_scale']}_"
                f"{o['output_dtype']}{bias}")
    if o["op"] == "grouped_mm":
        return (f"gmm_{o['a_format'][4:]}_{o['b_format'][4:]}_{o['a_scale']}_{o['b_scale']}_"
                f"{o['output_dtype']}")
    if o["op"] == "dequantize":
        parts = ["dq", o["format"], _blk(o["block"]), "s" + o["scale_dtype"],
                 "o" + o["output_dtype"]]
    else:
        parts = ["q", o["format"], o["input_dtype"], _blk(o["block"]), o["rule"],
                 o["rounding"]]
    if o["scale_layout"] == "blocked":
        parts.append("blk")
    if o["packing"] not in ("none", "fp4x2"):
        parts.append(PACK_TAG.get(o["packing"], o["packing"]))
    if o.get("global_scale") is False:
        parts.append("g1")
    if o.get("hadamard"):
        parts.append(f"h{o['hadamard']}s{o['hadamard_seed']}")
    if o.get("amax_per_matrix") or o.get("global_per_matrix"):
        parts.append("pm")
    elif o.get("amax_given"):
        parts.append("ag")
    if o.get("amax_out"):
        parts.append("ra")
    if o.get("nonfinite"):
        parts.append("sat")
    if o["rank"] == 3:
        parts.append("3d")
    return "_".join(parts)


def spec_text(options, name):
    """The MLIR kernel spec of one configuration."""
    o = options
    elem, kind, bits, code_ty = FORMATS[o["format"]]
    br, bc = o["block"]
    rank = o["rank"]
    dyn = "x".join(["?"] * rank)
    in_ty = f"tensor<{dyn}x{IN_TYPES[o['input_dtype']]}>"
    packed = o["packing"] in PACKING_LAYOUT
    q_ty = f"tensor<{dyn}x{'i8' if packed else code_ty}>"
    scale_elem = SCALE_TYPES[kind]
    per_tensor = br == 0 and bc == 0
    if per_tensor:
        s_ty = f"tensor<{'x'.join(['1'] * rank)}x{scale_elem}>"
    else:
        s_ty = f"tensor<{dyn}x{scale_elem}>"
    transposed = bc == 1 and br > 1
    block = ", ".join("*" if b == 0 else str(b) for b in (br, bc))
    src = "%x"
    rule = o["rule"] if kind == "e8m0" else AMAX_RULE
    attrs = [f"scaling = #fpx.scaling<block = [{block}], rule = {rule}, scale = {scale_elem}>"]
    if transposed:
        attrs.append("transposed")
    if bits != 8:
        attrs.append(f"format = #fpx.format<{elem}>")
    if packed:
        attrs.append(f"packing = #fpx.layout<{PACKING_LAYOUT[o['packing']]}>")
    if o["rounding"] != "rn":
        attrs.append(f"rounding = #fpx.rounding<{o['rounding']}>")
    if o.get("nonfinite"):
        attrs.append(f"nonfinite = #fpx.nonfinite<{o['nonfinite']}>")
    # Blocked scales: fpx.swizzle_scales (rank 2; fpx-fuse-quantize folds it
    # into the cast), or for a rank-3 tensor the cast's own scale_layout
    # (each matrix's scales in their own tiles).
    blocked_attr = o["scale_layout"] == "blocked" and rank == 3
    if blocked_attr:
        attrs.append("scale_layout = #fpx.layout<blocked_128x4>")
    given = bool(o.get("amax_given"))
    per_matrix = bool(o.get("amax_per_matrix"))
    a_ty = "tensor<?xf32>" if per_matrix else "tensor<f32>"
    two_level = kind == "nvfp4" and o.get("global_scale", True) and not given
    args = [f"%x: {in_ty}"] + ([f"%a: {a_ty}"] if given else [])
    operands = f" amax(%a : {a_ty})" if given else ""
    lines = []
    if o.get("hadamard"):
        # Fused into the amax and cast kernels by fpx-fuse-quantize.
        lines.append(f"  %h = fpx.hadamard %x {{size = {o['hadamard']}, "
                     f"seed = {o['hadamard_seed']}}} : {in_ty}")
        src = "%h"
    if two_level:
        lines.append(f"  %a = fpx.amax {src} : {in_ty} -> tensor<f32>")
        operands += " amax(%a : tensor<f32>)"
    if o["rounding"] == "rs":
        args.append("%seed: i64")
        operands += " seed(%seed)"
    # NVFP4's global scale g (fpx.global_scale, stored by the cast kernel:
    # one value, or one per matrix by the CTA that starts it).
    returns_g = two_level or (kind == "nvfp4" and given)
    results = [q_ty, s_ty] + ([a_ty] if returns_g else [])
    lines.append(f"  %q, %s = fpx.quantize {src}{operands} {{\n      " + ",\n      ".join(attrs) +
                 f"}}\n    : {in_ty} -> {q_ty}, {s_ty}")
    ret = ["%q", "%s"]
    if o["scale_layout"] == "blocked" and not blocked_attr:
        lines.append(f"  %b = fpx.swizzle_scales %s {{layout = #fpx.layout<blocked_128x4>}}\n"
                     f"    : {s_ty} -> {s_ty}")
        ret[1] = "%b"
    if returns_g:
        lines.append(f"  %g = fpx.global_scale %a : {a_ty}")
        ret.append("%g")
    if o.get("amax_out"):
        # this input's amax (of the transform), fused into the cast by fpxc
        lines.append(f"  %n = fpx.amax {src} : {in_ty} -> {a_ty}")
        ret.append("%n")
        results.append(a_ty)
    lines.append(f"  return {', '.join(ret)} : {', '.join(results)}")
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            + "\n".join(lines) + "\n}\n")


def dq_spec_text(options, name):
    """The MLIR spec of one dequantize configuration."""
    o = options
    elem, kind, bits, code_ty = FORMATS[o["format"]]
    br, bc = o["block"]
    rank = o["rank"]
    dyn = "x".join(["?"] * rank)
    packed = o["packing"] in PACKING_LAYOUT
    # fp6 and fp4 one code per byte: i8 codes with a format attribute.
    q_ty = f"tensor<{dyn}x{code_ty if bits == 8 else 'i8'}>"
    st = DQ_SCALE_TYPES[o["scale_dtype"]]
    lead = ["?"] * (rank - 2)
    if br == 0 and bc == 0:
        s_ty = f"tensor<{'x'.join(lead + ['1', '1'])}x{st}>"
    elif bc == 0:
        s_ty = f"tensor<{'x'.join(lead + ['?', '1'])}x{st}>"
    else:
        s_ty = f"tensor<{dyn}x{st}>"
    out_ty = f"tensor<{dyn}x{IN_TYPES[o['output_dtype']]}>"
    block = ", ".join("*" if b == 0 else str(b) for b in (br, bc))
    # (a dequantize ignores the rule: the first E8M0 rule, or amax)
    attrs = [f"scaling = #fpx.scaling<block = [{block}], rule = "
             f"{RULES[0] if kind == 'e8m0' else AMAX_RULE}, scale = {st}>"]
    if bits != 8:
        attrs.insert(0, f"format = #fpx.format<{elem}>")
    if packed:
        attrs.insert(1, f"packing = #fpx.layout<{PACKING_LAYOUT[o['packing']]}>")
    if o["scale_layout"] == "blocked":
        attrs.append("scale_layout = #fpx.layout<blocked_128x4>")
    args = [f"%q: {q_ty}", f"%s: {s_ty}"]
    operands = ""
    if kind == "nvfp4" and o.get("global_scale"):
        g_ty = "tensor<?xf32>" if o.get("global_per_matrix") else "tensor<f32>"
        args.append(f"%g: {g_ty}")
        operands = f" global_scale(%g : {g_ty})"
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}({', '.join(args)}) -> {out_ty} {{\n"
            f"  %y = fpx.dequantize %q, %s{operands} {{\n      " + ",\n      ".join(attrs) +
            f"}}\n    : {q_ty}, {s_ty} -> {out_ty}\n"
            f"  return %y : {out_ty}\n}}\n")


def hadamard_spec_text(options, name):
    o = options
    ty = f"tensor<?x?x{IN_TYPES[o['input_dtype']]}>"
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}(%x: {ty}) -> {ty} {{\n"
            f"  %h = fpx.hadamard %x {{size = {o['block']}, seed = {o['seed']}}} : {ty}\n"
            f"  return %h : {ty}\n}}\n")


def swizzle_spec_text(options, name):
    ty = "tensor<?x?xf8E8M0FNU>"
    ends = " offsets(%e : tensor<?xi32>)" if options["groups"] else ""
    args = f"%s: {ty}" + (", %e: tensor<?xi32>" if options["groups"] else "")
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}({args}) -> {ty} {{\n"
            f"  %b = fpx.swizzle_scales %s{ends} {{layout = #fpx.layout<blocked_128x4>}}"
            f" : {ty} -> {ty}\n"
            f"  return %b : {ty}\n}}\n")


def linear_spec_text(options, name):
    """fpx.scaled_matmul of x and a packed weight with its scales (the
    weight-only GEMM), as test/gpu/specs/wo_*.mlir: 4-, 5- and 6-bit codes as
    i8 bytes with rhs_format, NVFP4 with its tensor scale (global_scale, rank-0 f32)."""
    o = options
    if o["format"] in FORMATS:
        elem, kind, bits, code_ty = FORMATS[o["format"]]
    else:  # an element format with fp32 channel scales (FP6-LLM's fp6 / fp5)
        (elem, bits, code_ty), kind = ELEMENT_FORMATS[o["format"]], "fp32"
    br, bc = o["block"]
    act = IN_TYPES[o["input_dtype"]]
    x_ty, y_ty = f"tensor<?x?x{act}>", f"tensor<?x?x{IN_TYPES[o['output_dtype']]}>"
    w_ty = f"tensor<?x?x{code_ty if bits == 8 else 'i8'}>"
    st = DQ_SCALE_TYPES[o["scale_dtype"]]
    s_ty = f"tensor<?x1x{st}>" if bc == 0 else f"tensor<?x?x{st}>"
    block = ", ".join("*" if b == 0 else str(b) for b in (br, bc))
    rule = RULES[0] if kind == "e8m0" else AMAX_RULE
    attrs = [f"rhs_scaling = #fpx.scaling<block = [{block}], rule = {rule}, scale = {st}>",
             f"rhs_packing = #fpx.layout<{o['weight_layout']}>"]
    if bits != 8:
        attrs.insert(0, f"rhs_format = #fpx.format<{elem}>")
    g_arg = g_use = ""
    if kind == "nvfp4":
        g_arg, g_use = ", %g: tensor<f32>", " global_scale(%g : tensor<f32>)"
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}(%x: {x_ty}, %w: {w_ty}, %s: {s_ty}{g_arg}) -> {y_ty} {{\n"
            f"  %y = fpx.scaled_matmul %x : {x_ty}, %w : {w_ty} scales(%s : {s_ty}){g_use} {{\n      "
            + ",\n      ".join(attrs) + f"}} -> {y_ty}\n"
            f"  return %y : {y_ty}\n}}\n")


def scaled_mm_spec_text(options, name):
    """fpx.scaled_matmul of two fp8 operands with their fp32 (or MXFP8's
    e8m0) scales, or of two NVFP4 ones with their e4m3 scales and fp32
    global scales (as test/gpu/specs/sm_90a/smm_*.mlir)."""
    o = options
    nvfp4 = SCALED_MM_FAMILY.get(o["a_scale"], o["a_scale"]) == "nvfp4"
    sa_ty, sa_block = SCALED_MM_SCALES[o["a_scale"]]
    sb_ty, sb_block = SCALED_MM_SCALES[o["b_scale"]]
    sa_rule, sa_elt = SCALED_MM_SCALE_TYPES.get(o["a_scale"], (AMAX_RULE, "f32"))
    sb_rule, sb_elt = SCALED_MM_SCALE_TYPES.get(o["b_scale"], (AMAX_RULE, "f32"))
    y_ty = f"tensor<?x?x{IN_TYPES[o['output_dtype']]}>"
    if nvfp4:  # (e2m1 codes two a byte, the global scales after each operand's scales)
        a_ty = b_ty = "tensor<?x?xi8>"
        e2m1 = FORMATS["nvfp4"][0]  # (the element format, e2m1fn)
        args = [f"%a: {a_ty}", f"%sa: {sa_ty}", "%ga: tensor<f32>", f"%b: {b_ty}",
                f"%sb: {sb_ty}", "%gb: tensor<f32>"]
        g_a, g_b = " global_scale(%ga : tensor<f32>)", " global_scale(%gb : tensor<f32>)"
        formats = (f"lhs_format = #fpx.format<{e2m1}>, lhs_packing = #fpx.layout<fp4x2>,\n"
                   f"      rhs_format = #fpx.format<{e2m1}>, rhs_packing = #fpx.layout<fp4x2>,\n"
                   "      ")
    else:
        a_ty = f"tensor<?x?x{FORMATS[o['a_format']][3]}>"
        b_ty = f"tensor<?x?x{FORMATS[o['b_format']][3]}>"
        args = [f"%a: {a_ty}", f"%sa: {sa_ty}", f"%b: {b_ty}", f"%sb: {sb_ty}"]
        g_a = g_b = formats = ""
    for side, kind in (("lhs", o["a_scale"]), ("rhs", o["b_scale"])):
        if kind in SCALED_MM_FAMILY:
            formats += f"{side}_scale_layout = #fpx.layout<blocked_128x4>,\n      "
    bias = ""
    if o.get("bias"):
        # (the operand of the lowering's bias epilogue, once it has one)
        bias_ty = f"tensor<?x{IN_TYPES[o['bias']]}>"
        args.append(f"%bias: {bias_ty}")
        bias = f" bias(%bias : {bias_ty})"
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}({', '.join(args)}) -> {y_ty} {{\n"
            f"  %y = fpx.scaled_matmul %a : {a_ty} scales(%sa : {sa_ty}){g_a}, "
            f"%b : {b_ty} scales(%sb : {sb_ty}){g_b}{bias} {{\n"
            f"      {formats}lhs_scaling = #fpx.scaling<block = [{sa_block}], "
            f"rule = {sa_rule or AMAX_RULE}, scale = {sa_elt}>,\n"
            f"      rhs_scaling = #fpx.scaling<block = [{sb_block}], "
            f"rule = {sb_rule or AMAX_RULE}, scale = {sb_elt}>}} -> {y_ty}\n"
            f"  return %y : {y_ty}\n}}\n")


def grouped_mm_spec_text(options, name):
    """fpx.grouped_matmul of fp8 A (M, K) and B (G, N, K) with their rowwise
    f32 scales and the i32 group ends (as test/gpu/specs/sm_90a/gmm_*.mlir)."""
    o = options
    a_ty = f"tensor<?x?x{FORMATS[o['a_format']][3]}>"
    b_ty = f"tensor<?x?x?x{FORMATS[o['b_format']][3]}>"
    sa_ty, sb_ty, offs_ty = "tensor<?x1xf32>", "tensor<?x?x1xf32>", "tensor<?xi32>"
    y_ty = f"tensor<?x?x{IN_TYPES[o['output_dtype']]}>"
    scaling = f"#fpx.scaling<block = [1, *], rule = {AMAX_RULE}, scale = f32>"
    return (f"// fpx AOT bundle: {json.dumps(options, sort_keys=True)}\n"
            f"func.func @{name}(%a: {a_ty}, %sa: {sa_ty}, %b: {b_ty}, %sb: {sb_ty}, "
            f"%offs: {offs_ty}) -> {y_ty} {{\n"
            f"  %y = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {{\n"
            f"      lhs_scaling = {scaling},\n"
            f"      rhs_scaling = {scaling}}}\n"
            f"    : {a_ty}, {b_ty}, {offs_ty}, {sa_ty}, {sb_ty} -> {y_ty}\n"
            f"  return %y : {y_ty}\n}}\n")


def any_spec_text(options, name):
    return {"quantize": spec_text, "dequantize": dq_spec_text,
            "hadamard": hadamard_spec_text, "swizzle": swizzle_spec_text,
            "linear": linear_spec_text, "scaled_mm": scaled_mm_spec_text,
            "grouped_mm": grouped_mm_spec_text}[options["op"]](options, name)


def compile_one(fpxc, spec, target, stem, cubin):
    cmd = [fpxc, "compile", str(spec), "--target", target, "-o", str(stem)]
    if cubin:
        cmd.append("--cubin")
    for attempt in range(5):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
            return p.returncode, (p.stderr or p.stdout).strip()
        except OSError as e:  # fpxc being relinked by a concurrent build
            err = e
            time.sleep(1 + attempt)
    return 127, f"cannot run {fpxc}: {err}"


def finish_entry(c, path):
    """Writes the bundle's fields into a compiled artifact's metadata (the
    dispatch options, a fixed source name) in the bundle's canonical JSON
    form: a bundle entry is exactly what this gives for fpxc's output."""
    meta = json.loads(path.read_text())
    meta["options"] = dict(c["options"], function=c["name"])
    meta["source"] = f"fpx bundle {c['name']}.mlir"
    path.write_text(json.dumps(meta, separators=(",", ":"), sort_keys=True) + "\n")


def compile_entries(fpxc, configs, target, out, cubin, jobs):
    """Compiles every configuration for one target into OUT/<name>.*, in
    parallel; returns {name: (rc, log)} (a failure leaves no files)."""
    with cf.ThreadPoolExecutor(jobs) as pool:
        futs = {pool.submit(compile_one, fpxc, c["spec"], target, out / c["name"], cubin): c
                for c in configs}
        results = {futs[f]["name"]: f.result() for f in cf.as_completed(futs)}
    for c in configs:
        if results[c["name"]][0] != 0:
            for f in out.glob(c["name"] + ".*"):
                f.unlink()
        else:
            finish_entry(c, out / f"{c['name']}.json")
    return results


def fpxc_identity(fpxc):
    """What a bundle's index records about the compiler that built it:
    `fpxc --version` and the checkout's commit (with -dirty when tracked
    files differ from it; "unknown" outside a git checkout)."""
    version = subprocess.run([fpxc, "--version"], capture_output=True, text=True).stdout.strip()
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    if not commit:
        return version, "unknown"
    dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return version, commit + ("-dirty" if dirty else "")


def named_configs(which, op=None):
    """The configurations of a set (of some ops' entries with `op`, comma
    separated: a partial
    bundle, e.g. the full set's fpxc.scaled_mm kernels beside the core bundle
    through FPX_KERNEL_DIR), each with its name."""
    ops = None if op is None else set(op.split(","))
    configs = [c for c in configurations(which) if ops is None or c["options"]["op"] in ops]
    seen = set()
    for c in configs:
        c["name"] = name_of(c["options"])
        assert c["name"] not in seen, c["name"]
        seen.add(c["name"])
    return configs


def write_specs(configs, spec_dir):
    spec_dir.mkdir(parents=True, exist_ok=True)
    for c in configs:
        c["spec"] = spec_dir / f"{c['name']}.mlir"
        c["spec"].write_text(any_spec_text(c["options"], c["name"]))


def check(bundle, fpxc, sample=0, jobs=2, log=print):
    """Checks a built bundle (a directory of per-target folders) against
    this fpxc: every index names the fpxc version and a commit, lists
    exactly this script's configurations of its set, and its artifacts
    (SAMPLE of them spread over the set and the targets, every one when 0)
    are byte for byte what fpxc compiles now. Returns the problems found."""
    problems = []
    bundle = pathlib.Path(bundle)
    load_vocabulary(fpxc)
    version, _ = fpxc_identity(fpxc)
    indexes = sorted(bundle.glob("*/index.json"))
    if not indexes:
        return [f"{bundle}: no <target>/index.json"]
    todo = []
    for index in indexes:
        meta = json.loads(index.read_text())
        where = f"{index.parent.name}/index.json"
        if meta.get("format") != "fpx-bundle" or meta.get("version") != bundle_version:
            problems.append(f"{where}: format {meta.get('format')} version "
                            f"{meta.get('version')}, expected fpx-bundle {bundle_version}")
        if meta.get("fpxc") != version:
            problems.append(f"{where}: built by {meta.get('fpxc')!r}, this fpxc is {version!r}")
        if not meta.get("commit"):
            problems.append(f"{where}: no commit recorded")
        configs = [c for c in named_configs(meta.get("set", "full"), meta.get("op"))
                   if for_target(c, index.parent.name)]
        listed = [a["function"] for a in meta.get("artifacts", [])]
        want = [c["name"] for c in configs]
        if sorted(listed) != sorted(want):
            missing = sorted(set(want) - set(listed))
            extra = sorted(set(listed) - set(want))
            problems.append(f"{where}: lists {len(listed)} artifacts, the {meta.get('set')} set "
                            f"has {len(want)} (missing {missing[:5]}, not in the set {extra[:5]})")
        by_name = {c["name"]: c for c in configs}
        todo += [(index.parent, by_name[n]) for n in listed if n in by_name]
    if sample and sample < len(todo):
        # Spread over the whole list (every op family, both targets).
        todo = [todo[(i * len(todo)) // sample] for i in range(sample)]
    with tempfile.TemporaryDirectory(prefix="fpx-bundle-check-") as tmp:
        tmp = pathlib.Path(tmp)
        write_specs([c for _, c in todo], tmp / "specs")
        for target_dir in sorted({d for d, _ in todo}):
            configs = [c for d, c in todo if d == target_dir]
            out = tmp / target_dir.name
            out.mkdir()
            results = compile_entries(fpxc, configs, target_dir.name, out, False, jobs)
            for c in configs:
                rc, msg = results[c["name"]]
                if rc != 0:
                    problems.append(f"{target_dir.name}/{c['name']}: fpxc fails now: {msg}")
                    continue
                for ext in (".json", ".ptx"):
                    got = (target_dir / (c["name"] + ext))
                    fresh = (out / (c["name"] + ext)).read_bytes()
                    if not got.is_file():
                        problems.append(f"{target_dir.name}/{got.name}: missing")
                    elif got.read_bytes() != fresh:
                        problems.append(f"{target_dir.name}/{got.name}: differs from what "
                                        "fpxc compiles now")
            log(f"{target_dir.name}: {len(configs)} artifacts compiled and compared")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default="sm_90a", help="comma-separated chips (sm_90a,sm_100a,sm_120a,sm_80)")
    ap.add_argument("--out", default=os.environ.get("FPX_KERNEL_DIR", "").split(os.pathsep)[0]
                    or str(ROOT / "python-bindings/kernels-full"),
                    help="bundle directory (default $FPX_KERNEL_DIR or python-bindings/kernels-full)")
    ap.add_argument("--set", choices=("full", "core"), default="full")
    ap.add_argument("--op", help="only the configurations of these ops, comma separated "
                                 "(quantize, dequantize, hadamard, swizzle, linear, scaled_mm, "
                                 "grouped_mm): "
                                 "a partial bundle")
    ap.add_argument("--fpxc", default=os.environ.get("FPX_FPXC") or str(ROOT / "build/compiler/tools/fpxc"))
    ap.add_argument("--cubin", action="store_true", help="also assemble cubins (ptxas)")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 2))
    ap.add_argument("--specs", help="also keep the generated .mlir specs in this directory")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a configuration fails")
    ap.add_argument("--list", action="store_true", help="print the configurations and exit")
    ap.add_argument("--check", metavar="BUNDLE",
                    help="compare the bundle BUNDLE with what fpxc compiles now (exit 1 on a "
                         "difference); its indexes give the set and the targets")
    ap.add_argument("--sample", type=int, default=0,
                    help="with --check: compile this many entries spread over the bundle (0: all)")
    args = ap.parse_args(argv)

    if not os.access(args.fpxc, os.X_OK):
        print(f"build_bundle.py: no fpxc at {args.fpxc} (ninja -C build fpxc, or --fpxc)", file=sys.stderr)
        return 2
    load_vocabulary(args.fpxc)
    configs = named_configs(args.set, args.op)
    if args.list:
        for c in configs:
            print(c["name"], json.dumps(c["call"]))
        return 0
    if args.check:
        problems = check(args.check, args.fpxc, args.sample, args.jobs)
        for p in problems:
            print(f"build_bundle.py: {p}", file=sys.stderr)
        return 1 if problems else 0
    version, commit = fpxc_identity(args.fpxc)
    out_root = pathlib.Path(args.out)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="fpx-bundle-") as tmp:
        write_specs(configs, pathlib.Path(args.specs) if args.specs else pathlib.Path(tmp))
        for target in args.targets.split(","):
            t0 = time.time()
            out = out_root / target
            if out.exists():
                shutil.rmtree(out)
            out.mkdir(parents=True)
            mine = [c for c in configs if for_target(c, target)]
            results = compile_entries(args.fpxc, mine, target, out, args.cubin, args.jobs)
            entries = []
            for c in mine:
                rc, log = results[c["name"]]
                if rc != 0:
                    failures += 1
                    print(f"FAIL {target} {c['name']}: {log.splitlines()[0] if log else rc}",
                          file=sys.stderr)
                    continue
                entries.append({"file": f"{c['name']}.json", "function": c["name"],
                                "options": c["options"], "call": c["call"]})
            index = {"format": "fpx-bundle", "version": bundle_version, "target": target,
                     "set": args.set, **({"op": args.op} if args.op else {}),
                     "fpxc": version, "commit": commit, "artifacts": entries}
            (out / "index.json").write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
            size = sum(f.stat().st_size for f in out.iterdir())
            print(f"{target}: {len(entries)}/{len(mine)} artifacts, {size / 1e6:.2f} MB, "
                  f"{time.time() - t0:.1f} s -> {out}")
    return 1 if (failures and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
