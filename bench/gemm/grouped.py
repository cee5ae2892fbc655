"""Grouped fp8 GEMM benchmark (the MoE forward): fpxc's sm_90a lowering of
`fpx.grouped_matmul` (test/gpu/specs/sm_90a/gmm_e4m3_row_bf16.mlir: A (M, K)
e4m3 with rowwise f32 scales [M, 1], B (G, N, K) e4m3 with scales [G, N, 1],
the i32 group ends on the device, bf16 out) called through `fpxc.load`,
against what a PyTorch user has on the same GPU in the same run:

- `torch._scaled_grouped_mm` (e4m3 rowwise: the same codes and scales; B as
  the (G, K, N) column-major view of the (G, N, K) codes);
- `torch._grouped_mm` in bf16 on the dequantized operands;
- a loop of `torch._scaled_mm` rowwise over the groups (what a user without a
  grouped kernel writes; the group sizes must be on the host for it, a
  device-to-host copy this benchmark leaves out).

Operands: bf16 normal values, quantized per row by torch's rowwise recipe
(scale = row amax / 448, codes saturated to e4m3): every implementation gets
the same codes and scales. Times: GPU time under CUDA graphs (no host work;
queued_timing.graph_us) and the eager time per call back to back
(queued_us); TFLOP/s = 2 * sum(rows of the groups) * N * K over the graph
time. err: max |y - ref| / max |ref| on a few rows of every non-empty group
(its first, its last, one between), ref an fp32 matmul of the dequantized
operands; FAIL where fpxc's err > 1e-2 (bf16 output: its rounding is <= 2^-9),
and the exit status is then 1.

Cases: G x M x N x K : split, the M rows split among the G groups evenly or
unevenly (random sizes with one empty group, seeded by the case).

    python3 bench/gemm/grouped.py [--artifacts .art/gpu/sm_90a] [--cases G:M:...] [--out DIR]
    python3 bench/gemm/grouped.py --dry-run     # CPU: the cases, shapes, offsets, FLOPs
"""
import argparse
import json
import os
import pathlib
import random
import sys
import time

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "quantize"))
from queued_timing import graph_us, queued_us  # noqa: E402

SPEC = "gmm_e4m3_row_bf16"
FAIL_ERR = 1e-2
E4M3_MAX = 448.0

# (N, K) of the expert GEMMs (DeepSeek-V3-like: hidden 7168, expert width 2048).
SHAPES = [(2048, 7168), (4096, 2048)]


def default_cases():
    """The MoE cases: G in (8, 32), M in (4096, 16384, 65536) tokens, both
    splits, at each (N, K); then a decode-like step (M = 256, G = 8). Ordered
    so that consecutive cases share B (one per (G, N, K))."""
    cases = []
    for n, k in SHAPES:
        for g in (8, 32):
            for m in (4096, 16384, 65536):
                for split in ("even", "uneven"):
                    cases.append(f"{g}x{m}x{n}x{k}:{split}")
    for split in ("even", "uneven"):
        cases.append(f"8x256x2048x7168:{split}")
    return cases


def parse_case(text):
    """'GxMxNxK[:even|uneven]' -> (G, M, N, K, split)."""
    shape, _, split = text.strip().partition(":")
    split = split or "even"
    try:
        g, m, n, k = (int(v) for v in shape.split("x"))
    except ValueError:
        raise SystemExit(f"grouped.py: bad case {text!r} (want GxMxNxK[:even|uneven])") from None
    if split not in ("even", "uneven"):
        raise SystemExit(f"grouped.py: bad split {split!r} in {text!r} (even or uneven)")
    if g < 1 or m < 0 or n < 1 or k < 1 or (split == "uneven" and g < 2):
        raise SystemExit(f"grouped.py: bad case {text!r} (G >= 1, 2 for uneven; N, K >= 1)")
    return g, m, n, k, split


def case_seed(g, m, n, k):
    """The seed of a case's group sizes and sampled rows (the same every run)."""
    return g * 1000003 + m * 17 + n * 3 + k


def group_sizes(g, m, split, seed):
    """Rows a group: even (M // G, the remainder one each to the first
    groups) or uneven (log-normal weights, one group empty, the rounding's
    remainder to the largest groups), summing to M."""
    if split == "even":
        sizes = [m // g + (i < m % g) for i in range(g)]
    else:
        rng = random.Random(seed)
        w = [rng.lognormvariate(0.0, 1.0) for _ in range(g)]
        w[rng.randrange(g)] = 0.0
        total = sum(w)
        sizes = [int(m * x / total) for x in w]
        for i in sorted(range(g), key=lambda i: -w[i])[:m - sum(sizes)]:
            sizes[i] += 1
    assert len(sizes) == g and sum(sizes) == m and min(sizes) >= 0, sizes
    assert split == "even" or 0 in sizes, sizes
    return sizes


def rowwise_fp8(x):
    """(e4m3 codes, f32 scales [..., 1]) of x per row: torch's rowwise
    recipe (torchao's float8 rowwise): scale = row amax / 448 (1 for an
    all-zero row), codes = x / scale saturated to +-448."""
    amax = x.abs().amax(dim=-1, keepdim=True).float()
    s = torch.where(amax > 0, amax / E4M3_MAX, torch.ones_like(amax))
    q = (x.float() / s).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, s


class Operands:
    """A and B of a case, made once and kept while consecutive cases share
    them (B for one (G, N, K), A for one (M, K)), with their bf16
    dequantized copies for torch._grouped_mm made on first use."""

    def __init__(self, device):
        self.device = device
        self.a_key = self.b_key = None
        self.a = self.sa = self.b = self.sb = self.a16 = self.b16 = None

    def get(self, g, m, n, k):
        if self.b_key != (g, n, k):
            self.b = self.sb = self.b16 = None
            gen = torch.Generator(device=self.device).manual_seed(g * 7919 + n * 31 + k)
            self.b = torch.empty(g, n, k, dtype=torch.float8_e4m3fn, device=self.device)
            self.sb = torch.empty(g, n, 1, dtype=torch.float32, device=self.device)
            for i in range(g):  # a group at a time: the fp32 temporary stays small
                w = torch.randn(n, k, generator=gen, device=self.device, dtype=torch.bfloat16)
                self.b[i], self.sb[i] = rowwise_fp8(w)
            self.b_key = (g, n, k)
        if self.a_key != (m, k):
            self.a = self.sa = self.a16 = None
            gen = torch.Generator(device=self.device).manual_seed(m * 131 + k)
            x = torch.randn(m, k, generator=gen, device=self.device, dtype=torch.bfloat16)
            self.a, self.sa = rowwise_fp8(x)
            self.a_key = (m, k)
        return self.a, self.sa, self.b, self.sb

    def bf16(self):
        if self.a16 is None:
            self.a16 = (self.a.float() * self.sa).to(torch.bfloat16)
        if self.b16 is None:
            self.b16 = torch.empty(self.b.shape, dtype=torch.bfloat16, device=self.device)
            for i in range(self.b.shape[0]):
                self.b16[i] = (self.b[i].float() * self.sb[i]).to(torch.bfloat16)
        return self.a16, self.b16


def sample_rows(sizes, seed):
    """[(group, rows)] to check: the first, the last and one row between of
    every non-empty group."""
    rng = random.Random(seed)
    out, start = [], 0
    for gi, s in enumerate(sizes):
        if s:
            out.append((gi, sorted({start, start + s - 1, start + rng.randrange(s)})))
        start += s
    return out


def rel_err(y, a, sa, b, sb, samples):
    """max |y - ref| / max |ref| over the sampled rows, ref the fp32 matmul
    of the dequantized operands (row m of group g: (A[m] sa[m]) . (B[g, n] sb[g, n]))."""
    err = big = 0.0  # (no sampled rows: M = 0, nothing to be wrong)
    for gi, rows in samples:
        idx = torch.tensor(rows, device=a.device)
        ref = (a[idx].float() * sa[idx]) @ (b[gi].float() * sb[gi]).T
        err = max(err, (y[idx].float() - ref).abs().max().item())
        big = max(big, ref.abs().max().item())
    return err / big if big else (0.0 if not samples else float("nan"))


def why(e):
    """An exception as one short line (torch's dispatcher errors run to pages)."""
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text[:200]}"


def time_both(name, fn, notes):
    """(graph us, eager us) of fn, None for what fails (the reason printed
    once and kept in notes)."""
    out = []
    for how, timer in (("graph", graph_us), ("eager", queued_us)):
        try:
            out.append(timer(fn))
        except Exception as e:  # noqa: BLE001 (a peer that fails is reported, the run goes on)
            msg = f"{name} ({how}): {why(e)}"
            print(f"  note: {msg}")
            notes.append(msg)
            torch.cuda.synchronize()
            out.append(None)
    return tuple(out)


def peers(a, sa, b, sb, offs, sizes, ops):
    """{peer: callable(i) -> (M, N) bf16}, the peers that exist in this torch
    (a note for each that does not)."""
    g, n, _ = b.shape
    out = {}
    notes = []
    if hasattr(torch, "_scaled_grouped_mm"):
        sa1, sb2, bt = sa.view(-1), sb.view(g, n), b.transpose(-2, -1)
        out["scaled_grouped_mm"] = lambda i: torch._scaled_grouped_mm(
            a, bt, sa1, sb2, offs=offs, out_dtype=torch.bfloat16)
    else:
        notes.append(f"torch {torch.__version__} has no torch._scaled_grouped_mm")
    if hasattr(torch, "_grouped_mm"):
        def grouped_bf16(i):
            a16, b16 = ops.bf16()
            return torch._grouped_mm(a16, b16.transpose(-2, -1), offs=offs,
                                     out_dtype=torch.bfloat16)
        out["grouped_mm_bf16"] = grouped_bf16
    else:
        notes.append(f"torch {torch.__version__} has no torch._grouped_mm (bf16 peer skipped)")
    # the loop: host-known sizes, each group's rows written into one output
    parts, start = [], 0
    for gi, s in enumerate(sizes):
        if s:
            parts.append((slice(start, start + s), b[gi].T, sb[gi].view(1, n), gi))
        start += s

    def loop(i):
        y = torch.empty(a.shape[0], n, dtype=torch.bfloat16, device=a.device)
        for rows, bt, sbg, _ in parts:
            torch._scaled_mm(a[rows], bt, sa[rows], sbg, out_dtype=torch.bfloat16, out=y[rows])
        return y
    out["scaled_mm_loop"] = loop
    return out, notes


def fmt(v, w=8, p=1):
    return f"{v:{w}.{p}f}" if isinstance(v, (int, float)) and v == v else f"{'-':>{w}}"


def fmt_us(graph, eager):
    """The graph time, else the eager one marked * (a call that cannot be captured)."""
    return fmt(graph) if graph else (fmt(eager, 7) + "*" if eager else fmt(None))


def run_case(text, fn, ops):
    g, m, n, k, split = parse_case(text)
    seed = case_seed(g, m, n, k)
    sizes = group_sizes(g, m, split, seed)
    flop = 2.0 * sum(sizes) * n * k
    a, sa, b, sb = ops.get(g, m, n, k)
    ends = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32).to(a.device)
    samples = sample_rows(sizes, seed)
    r = dict(case=text, G=g, M=m, N=n, K=k, split=split, sizes=sizes, flop=flop, notes=[])
    call = lambda i: fn(a, sa, b, sb, ends)  # noqa: E731
    y = call(0)
    r["fpxc_err"] = rel_err(y, a, sa, b, sb, samples)
    r["fpxc_us"], r["fpxc_eager_us"] = time_both("fpxc", call, r["notes"])
    impls, notes = peers(a, sa, b, sb, ends, sizes, ops)
    for msg in notes:
        print(f"  note: {msg}")
    r["notes"] += notes
    for name, pf in impls.items():
        try:
            z = pf(0)
        except Exception as e:  # noqa: BLE001
            msg = f"{name}: {why(e)}"
            print(f"  note: {msg}")
            r["notes"].append(msg)
            r[f"{name}_us"] = r[f"{name}_eager_us"] = r[f"{name}_err"] = None
            torch.cuda.synchronize()
            continue
        r[f"{name}_err"] = rel_err(z, a, sa, b, sb, samples)
        if name == "scaled_grouped_mm":  # fpxc against the peer, every row
            r["fpxc_vs_peer"] = ((y.float() - z.float()).abs().max()
                                 / z.float().abs().max()).item()
        del z
        r[f"{name}_us"], r[f"{name}_eager_us"] = time_both(name, pf, r["notes"])
    del y
    timed = {p: r[f"{p}_us"] or r[f"{p}_eager_us"] for p in impls}
    timed = {p: t for p, t in timed.items() if t}
    r["best_peer"] = min(timed, key=timed.get) if timed else None
    fx = r["fpxc_us"] or r["fpxc_eager_us"]
    r["speedup"] = timed[r["best_peer"]] / fx if timed and fx else None
    r["fail"] = not r["fpxc_err"] <= FAIL_ERR
    return r


PEERS = ("scaled_grouped_mm", "grouped_mm_bf16", "scaled_mm_loop")
HEAD = (f"{'case':>26} | {'fpxc us':>8} {'eager us':>8} {'TFLOP/s':>7} {'err':>7} | "
        f"{'sgmm us':>8} {'TFLOP/s':>7} | {'gmm bf16':>8} {'TFLOP/s':>7} | "
        f"{'loop us':>8} {'TFLOP/s':>7} {'eager us':>8} | {'best/fpxc':>9}")


def line(r):
    tf = lambda t: r["flop"] / t / 1e6 if t else float("nan")  # noqa: E731
    s = (f"{r['case']:>26} | {fmt(r['fpxc_us'])} {fmt(r['fpxc_eager_us'])} "
         f"{fmt(tf(r['fpxc_us'] or r['fpxc_eager_us']), 7)} {r['fpxc_err']:7.1e} |")
    for p in PEERS:
        t = r.get(f"{p}_us") or r.get(f"{p}_eager_us")
        s += f" {fmt_us(r.get(f'{p}_us'), r.get(f'{p}_eager_us'))} {fmt(tf(t), 7)}"
        s += f" {fmt(r.get(f'{p}_eager_us'))} |" if p == "scaled_mm_loop" else " |"
    s += f" {fmt(r['speedup'], 9, 2)}"
    if r["fail"]:
        s += "  FAIL (fpxc err > 1e-2)"
    return s


def dry_run(cases, art):
    """The cases' shapes, group sizes, ends and FLOPs, checked; with the
    artifact (and an fpxc that imports) also its call checks on the shapes
    (fpxc's accepts: no GPU); then the error check on a small CPU problem,
    once with the right and once with a wrong grouping."""
    fn = None
    path = pathlib.Path(art) / f"{SPEC}.json"
    if path.is_file():
        try:
            import fpxc
            fn = fpxc.load(str(path)).functions[SPEC]
            print(f"artifact {path}: {fn}")
        except Exception as e:  # noqa: BLE001
            print(f"artifact {path} not checked: {type(e).__name__}: {e}")
    else:
        print(f"no {path}: the artifact's call checks are skipped")
    print(f"{'case':>26} | {'A':>13} {'B':>16} {'offs':>5} | {'rows min/max':>12} {'empty':>5} "
          f"{'last end':>8} | {'GFLOP':>8} {'MB in':>8} | artifact")
    for text in cases:
        g, m, n, k, split = parse_case(text)
        sizes = group_sizes(g, m, split, case_seed(g, m, n, k))
        ends = torch.tensor(sizes, dtype=torch.int64).cumsum(0).to(torch.int32)
        assert ends[-1].item() == m and bool((ends[1:] >= ends[:-1]).all())
        flop = 2.0 * sum(sizes) * n * k
        mb = (m * k + g * n * k + 4 * (m + g * n + g)) / 1e6
        shapes = [(m, k), (m, 1), (g, n, k), (g, n, 1), (g,)]
        check = "-"
        if fn is not None:
            ok, why = fn.accepts(*shapes)
            out = fn.output_shapes(*shapes) if ok else None
            check = "accepted, out " + str(out[0]) if ok and out[0] == (m, n) else f"REFUSED: {why}"
        print(f"{text:>26} | {str(shapes[0]):>13} {str(shapes[2]):>16} {g:>5} | "
              f"{f'{min(sizes)}/{max(sizes)}':>12} {sizes.count(0):>5} {ends[-1].item():>8} | "
              f"{flop / 1e9:8.1f} {mb:8.1f} | {check}")
    # the checker on the CPU: a per-group fp32 product passes, B's groups rotated fails
    ops = Operands("cpu")
    g, m, n, k = 4, 40, 32, 64
    sizes = group_sizes(g, m, "uneven", 1)
    a, sa, b, sb = ops.get(g, m, n, k)
    y = torch.empty(m, n)
    wrong = torch.empty(m, n)
    start = 0
    for gi, s in enumerate(sizes):
        rows = slice(start, start + s)
        y[rows] = (a[rows].float() * sa[rows]) @ (b[gi].float() * sb[gi]).T
        o = (gi + 1) % g
        wrong[rows] = (a[rows].float() * sa[rows]) @ (b[o].float() * sb[o]).T
        start += s
    samples = sample_rows(sizes, 2)
    e_ok = rel_err(y.to(torch.bfloat16), a, sa, b, sb, samples)
    e_bad = rel_err(wrong, a, sa, b, sb, samples)
    print(f"checker (CPU, sizes {sizes}): per-group product err {e_ok:.1e} "
          f"(pass <= {FAIL_ERR}), groups rotated err {e_bad:.1e} (must fail)")
    assert e_ok <= FAIL_ERR < e_bad, (e_ok, e_bad)
    print("dry run: OK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=".art/gpu/sm_90a",
                    help=f"the folder holding {SPEC}.json (fpxc's compile of "
                         f"test/gpu/specs/sm_90a/{SPEC}.mlir; build/gpu-artifacts/sm_90a)")
    ap.add_argument("--cases", default=",".join(default_cases()),
                    help="comma-separated GxMxNxK[:even|uneven]")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="writes OUT/grouped.json")
    ap.add_argument("--dry-run", action="store_true",
                    help="CPU: print the cases, shapes, group sizes and FLOPs, check them")
    a = ap.parse_args()
    cases = [c for c in a.cases.split(",") if c.strip()]
    for c in cases:  # a bad case stops the run before any work
        parse_case(c)
    if a.dry_run:
        return dry_run(cases, a.artifacts)
    path = pathlib.Path(a.artifacts) / f"{SPEC}.json"
    if not path.is_file():
        raise SystemExit(f"grouped.py: no {path} (--artifacts: build/gpu-artifacts/sm_90a)")
    if not torch.cuda.is_available():
        raise SystemExit("grouped.py: no CUDA GPU (--dry-run for the CPU checks)")
    import fpxc
    fn = fpxc.load(str(path)).functions[SPEC]
    print(f"{torch.cuda.get_device_name()}; torch {torch.__version__}; fpxc {fpxc.__version__}; "
          f"{path}")
    print("us: GPU time under CUDA graphs (eager: back-to-back calls); TFLOP/s = 2 sum(rows) N K "
          "/ graph time; err vs an fp32 reference on sampled rows; sgmm = "
          "torch._scaled_grouped_mm, gmm bf16 = torch._grouped_mm on dequantized bf16, loop = "
          "torch._scaled_mm per group; best/fpxc = best peer's time / fpxc's (> 1: fpxc faster); "
          "* = eager time, the call could not be captured in a graph")
    print(HEAD)
    t0 = time.perf_counter()
    ops = Operands("cuda")
    rows = []
    for text in cases:
        try:
            r = run_case(text, fn, ops)
        except Exception as e:  # noqa: BLE001 (fpxc itself failed: a FAIL row, the run goes on)
            print(f"{text:>26} | FAIL: {why(e)}")
            torch.cuda.synchronize()
            rows.append(dict(case=text, fail=True, error=why(e)))
            continue
        print(line(r))
        errs = ", ".join(f"{p} {r[f'{p}_err']:.1e}" for p in PEERS
                         if r.get(f"{p}_err") is not None)
        vs = (f"fpxc vs torch._scaled_grouped_mm, every row: {r['fpxc_vs_peer']:.1e}; "
              if r.get("fpxc_vs_peer") is not None else "")
        print(f"{'':>26}   {vs}peers' err: {errs or '-'}; best peer {r['best_peer']}")
        rows.append(r)
    fails = [r["case"] for r in rows if r.get("fail")]
    print(f"{len(rows)} cases in {time.perf_counter() - t0:.0f} s; "
          + (f"FAIL: {', '.join(fails)}" if fails else "all fpxc results within 1e-2"))
    if a.out:
        p = pathlib.Path(a.out)
        p.mkdir(parents=True, exist_ok=True)
        (p / "grouped.json").write_text(json.dumps(
            dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                 fpxc=fpxc.__version__, artifact=str(path), rows=rows), indent=1))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
