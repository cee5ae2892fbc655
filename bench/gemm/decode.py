#!/usr/bin/env python3
"""End-to-end weight-only decode (issue 38): a decoder stack with Llama-3-8B's
linear shapes, its nn.Linear modules swapped by fpxc.nn.swap_linear_, timed
token by token at batch 1 against the same stack in bf16.

Each layer (random weights, bf16): RMSNorm, the q/k/v projection (hidden 4096
-> 4096 + 1024 + 1024: 32 query heads, 8 KV heads of 128), attention, o
projection (4096 -> 4096), residual; RMSNorm, the gate/up projection (4096 ->
2 x 14336), SiLU(gate) * up, down (14336 -> 4096), residual. No embedding and
no lm_head: the hidden state of one step is the next step's input.

The attention is a stand-in that costs what decode attention costs at a
fixed context: the new token's k and v are written into slot `pos %
context` of a KV cache of `--context` positions (filled with random values
at the start), and the token's 32 query heads attend over all `context`
slots of their KV head (grouped-query, torch's scaled_dot_product_attention,
no causal mask, no rotary embedding). `pos` is a device tensor, so one step
is capturable in a CUDA graph.

Both models get what a serving stack (vLLM, TensorRT-LLM, gpt-fast) does to
a decoder, so that the time outside the linears is a serving stack's and the
comparison stays fair:
  --fused (default; --no-fused: the separate projections) merges q, k and v
      into one 4096 -> 6144 linear and gate and up into one 4096 -> 28672
      linear, their outputs split by views: 4 linears a layer instead of 7.
  --compile (default on a GPU; --no-compile: eager modules) runs the step
      through torch.compile(fullgraph=True, inductor's default mode), which
      fuses RMSNorm, the residual adds, SiLU * up and the KV-cache write into
      a few kernels (eager: about 25 a layer). fpxc.linear is a custom op
      that compiles whole-graph; the bf16 model and the swapped model are
      each compiled afresh (torch._dynamo.reset() between). The script
      captures its own CUDA graph of the compiled step (no reduce-overhead).
      --dry-run leaves compile off unless --compile is given (inductor's CPU
      build of the step takes longer than the rest of the dry run).
Both models run with the same flags; the header names them.

Printed: ms a token for bf16 and fpxc (without a graph, eager or compiled,
and one step captured in a CUDA graph and replayed), the speedup beside the
ratio of the linear weights' bytes (bf16 bytes / fpxc packed codes +
scales), and the issue's check: the CUDA-graph speedup within 20% of that
ratio. The first step's output of both models is compared (relative
Frobenius error; fp8 weights).

    python3 bench/gemm/decode.py [--layers 32] [--tokens 64] [--format fp8_e4m3]
    python3 bench/gemm/decode.py --no-compile --no-fused   # the measurements before both
    python3 bench/gemm/decode.py --dry-run      # CPU, tiny dims: the flow only
"""
import argparse
import sys
import time

import torch
import torch.nn.functional as F

LLAMA3_8B = dict(hidden=4096, intermediate=14336, heads=32, kv_heads=8, head_dim=128)


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) \
            * self.weight


class Layer(torch.nn.Module):
    def __init__(self, hidden, intermediate, heads, kv_heads, head_dim, context, fused):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.fused = fused
        q, kv = heads * head_dim, kv_heads * head_dim
        self.attn_norm = RMSNorm(hidden)
        if fused:  # one GEMM for q, k, v and one for gate, up (a serving stack's layout)
            self.qkv_proj = torch.nn.Linear(hidden, q + 2 * kv, bias=False)
        else:
            self.q_proj = torch.nn.Linear(hidden, q, bias=False)
            self.k_proj = torch.nn.Linear(hidden, kv, bias=False)
            self.v_proj = torch.nn.Linear(hidden, kv, bias=False)
        self.o_proj = torch.nn.Linear(q, hidden, bias=False)
        self.mlp_norm = RMSNorm(hidden)
        if fused:
            self.gate_up_proj = torch.nn.Linear(hidden, 2 * intermediate, bias=False)
        else:
            self.gate_proj = torch.nn.Linear(hidden, intermediate, bias=False)
            self.up_proj = torch.nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = torch.nn.Linear(intermediate, hidden, bias=False)
        # The stand-in KV cache (see the module's docstring).
        self.register_buffer("k_cache", torch.randn(1, kv_heads, context, head_dim))
        self.register_buffer("v_cache", torch.randn(1, kv_heads, context, head_dim))

    def forward(self, x, pos):
        b, t, _ = x.shape  # (1, 1, hidden)
        h = self.attn_norm(x)
        if self.fused:
            kv = self.kv_heads * self.head_dim
            q, k, v = self.qkv_proj(h).split([self.heads * self.head_dim, kv, kv], dim=-1)
        else:
            q, k, v = self.q_proj(h), self.k_proj(h), self.v_proj(h)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        slot = pos % self.k_cache.shape[2]
        self.k_cache.index_copy_(2, slot, k)
        self.v_cache.index_copy_(2, slot, v)
        # grouped-query attention: each KV head serves heads / kv_heads queries
        qg = q.reshape(b, self.kv_heads, (self.heads // self.kv_heads) * t, self.head_dim)
        a = F.scaled_dot_product_attention(qg, self.k_cache, self.v_cache)
        a = a.reshape(b, self.heads, t, self.head_dim).transpose(1, 2).reshape(b, t, -1)
        x = x + self.o_proj(a)
        h = self.mlp_norm(x)
        if self.fused:
            gate, up = self.gate_up_proj(h).chunk(2, dim=-1)
        else:
            gate, up = self.gate_proj(h), self.up_proj(h)
        return x + self.down_proj(F.silu(gate) * up)


class Decoder(torch.nn.Module):
    def __init__(self, layers, context, fused, **dims):
        super().__init__()
        self.layers = torch.nn.ModuleList(Layer(context=context, fused=fused, **dims)
                                          for _ in range(layers))

    def forward(self, x, pos):
        for layer in self.layers:
            x = layer(x, pos)
        return x


def linear_bytes(model):
    """Bytes of the linear weights a decode step streams: bf16 weights, or
    fpxc's packed codes and scales."""
    import fpxc
    total = 0
    for m in model.modules():
        if isinstance(m, torch.nn.Linear):
            total += m.weight.nbytes
        elif isinstance(m, fpxc.nn.Linear):
            total += m.weight.nbytes
    return total


class Clock:
    """ms between two points of the device's work (CUDA events), or of the
    host (a CPU run)."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def time(self, fn, reps):
        if self.cuda:
            torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(reps):
                fn()
            b.record()
            torch.cuda.synchronize()
            return a.elapsed_time(b) / reps
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        return (time.perf_counter() - t) * 1e3 / reps


def stepper(model, compile):
    """The step a decode runs: the model itself, or a fresh torch.compile of
    it (whole graph, inductor's default mode: the script captures its own
    CUDA graph). Dynamo's caches are dropped first, so the swapped model
    compiles from scratch rather than as a recompile of the bf16 one."""
    if not compile:
        return model
    torch._dynamo.reset()
    return torch.compile(model, fullgraph=True)


def profile_step(model, x0, steps, label, top=12):
    """Prints where a step's device time goes: `steps` steps (no graph) under
    torch.profiler, kernel time a token, the largest kernels first."""
    from torch.profiler import ProfilerActivity, profile
    pos = torch.zeros(1, dtype=torch.long, device=x0.device)
    with torch.inference_mode():
        model(x0, pos)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                model(x0, pos)
            torch.cuda.synchronize()
    rows = [(e.key, e.device_time_total / 1e3 / steps, e.count // steps)
            for e in prof.key_averages() if e.device_time_total > 0]
    rows.sort(key=lambda r: -r[1])
    total = sum(r[1] for r in rows)
    print(f"profile {label}: {total:.3f} ms of kernels a token (no graph)")
    for name, ms, n in rows[:top]:
        print(f"  {ms:7.3f} ms {100 * ms / total:5.1f}%  {n:4d}x  {name[:90]}")


def time_decode(model, x0, tokens, clock, graphs):
    """(ms a token without a graph, CUDA-graph ms a token or None): `tokens`
    steps of `model` (a module or its compiled step), the output of each the
    input of the next, the position advancing on the device. The warm-up
    steps compile a compiled step before any timing or capture."""
    pos = torch.zeros(1, dtype=torch.long, device=x0.device)
    x = x0.clone()

    def step():
        nonlocal x
        x = model(x, pos)
        pos.add_(1)

    with torch.inference_mode():
        step()  # warm-up: kernels loaded, plans made, a compiled step compiled
        step()
        eager = clock.time(step, tokens)
        if not graphs:
            return eager, None
        static_x, static_pos = x0.clone(), torch.zeros_like(pos)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                model(static_x, static_pos)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = model(static_x, static_pos)
            static_pos.add_(1)

        def replay():
            g.replay()
            static_x.copy_(out)

        replay()
        graph = clock.time(replay, tokens)
    return eager, graph


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=32, help="decoder layers (Llama-3-8B: 32)")
    ap.add_argument("--tokens", type=int, default=64, help="decode steps timed")
    ap.add_argument("--context", type=int, default=1024, help="KV cache positions")
    ap.add_argument("--format", default="fp8_e4m3")
    ap.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16"))
    ap.add_argument("--no-graphs", action="store_true", help="no CUDA graph (eager or compiled)")
    ap.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None,
                    help="torch.compile(fullgraph=True) the step of both models (default: on, "
                    "off with --dry-run)")
    ap.add_argument("--fused", action=argparse.BooleanOptionalAction, default=True,
                    help="q/k/v and gate/up as one linear each (default: on)")
    ap.add_argument("--profile", type=int, default=0, metavar="STEPS",
                    help="also print each model's largest kernels over STEPS steps (GPU)")
    ap.add_argument("--dry-run", action="store_true",
                    help="CPU, 1 layer of tiny dims, 2 tokens: the flow and checks only")
    a = ap.parse_args(argv)
    import fpxc

    dims = dict(LLAMA3_8B)
    if a.dry_run:
        dims = dict(hidden=256, intermediate=512, heads=4, kv_heads=2, head_dim=64)
        a.layers, a.tokens, a.context = 1, 2, 16
        device = torch.device("cpu")
    else:
        if not torch.cuda.is_available():
            print("decode.py: no CUDA GPU (use --dry-run for a CPU run of the flow)")
            return 2
        device = torch.device("cuda")
    compile_note = ""
    if a.compile is None:
        a.compile = not a.dry_run
        if a.dry_run:
            compile_note = " (--dry-run: --compile for inductor's CPU build)"
    graphs = device.type == "cuda" and not a.no_graphs
    dtype = getattr(torch, a.dtype)
    torch.manual_seed(0)
    with torch.device(device):
        model = Decoder(a.layers, a.context, a.fused, **dims)
        for m in model.modules():  # weights of a trained model's scale
            if isinstance(m, torch.nn.Linear):
                torch.nn.init.normal_(m.weight, std=m.in_features ** -0.5)
    model = model.to(dtype).eval()
    x0 = torch.randn(1, 1, dims["hidden"], device=device, dtype=dtype)
    clock = Clock(device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU dry run"
    print(f"{name}; torch {torch.__version__}; fpxc {fpxc.__version__}; {a.layers} layers of "
          f"Llama-3-8B linear shapes (hidden {dims['hidden']}, intermediate "
          f"{dims['intermediate']}), batch 1, {a.tokens} tokens timed, context {a.context}, "
          f"{a.dtype}; compile {'on' if a.compile else 'off'}{compile_note}, fused "
          f"{'on' if a.fused else 'off'}")
    print("a layer's linears (in -> out): " + ", ".join(
        f"{n} {m.in_features}->{m.out_features}" for n, m in model.layers[0].named_children()
        if isinstance(m, torch.nn.Linear)))

    caches = [(layer.k_cache.clone(), layer.v_cache.clone()) for layer in model.layers]
    step = stepper(model, a.compile)
    t = time.perf_counter()
    with torch.inference_mode():  # (the compile, with --compile)
        ref = step(x0, torch.zeros(1, dtype=torch.long, device=device)).float()
    bf_first_s = time.perf_counter() - t
    bf_bytes = linear_bytes(model)
    bf_eager, bf_graph = time_decode(step, x0, a.tokens, clock, graphs)
    if a.profile and device.type == "cuda":
        profile_step(step, x0, a.profile, "bf16")
    del step

    t = time.perf_counter()
    fpxc.nn.swap_linear_(model, format=a.format)
    swap_s = time.perf_counter() - t
    q_bytes = linear_bytes(model)
    # (the bf16 run wrote into the caches: the same start for the comparison)
    for layer, (k, v) in zip(model.layers, caches):
        layer.k_cache.copy_(k)
        layer.v_cache.copy_(v)
    del caches
    step = stepper(model, a.compile)
    t = time.perf_counter()
    with torch.inference_mode():
        got = step(x0, torch.zeros(1, dtype=torch.long, device=device)).float()
    q_first_s = time.perf_counter() - t
    q_eager, q_graph = time_decode(step, x0, a.tokens, clock, graphs)
    if a.profile and device.type == "cuda":
        profile_step(step, x0, a.profile, f"fpxc {a.format}")
    err = ((got - ref).norm() / ref.norm()).item()

    ratio = bf_bytes / q_bytes
    print(f"linear weights: bf16 {bf_bytes / 1e9:.3f} GB, fpxc {a.format} {q_bytes / 1e9:.3f} GB "
          f"(ratio {ratio:.2f}x); swap_linear_ {swap_s:.1f} s")
    if a.compile:
        print(f"torch.compile (the first step): bf16 {bf_first_s:.1f} s, fpxc {q_first_s:.1f} s")
    print(f"first step's output vs bf16 (same caches; {a.format} weights): rel {err:.2e}")
    print(f"{'':12} {'bf16 ms/tok':>12} {'fpxc ms/tok':>12} {'speedup':>8} {'bytes ratio':>12}")
    rows = [("compiled" if a.compile else "eager", bf_eager, q_eager)]
    if graphs:
        rows.append(("cuda graph", bf_graph, q_graph))
    for label, b, q in rows:
        print(f"{label:12} {b:12.3f} {q:12.3f} {b / q:7.2f}x {ratio:11.2f}x")
    ok = True
    if graphs:
        speedup = bf_graph / q_graph
        ok = speedup >= 0.8 * ratio
        print(f"target (issue 38): CUDA-graph speedup {speedup:.2f}x within 20% of the byte "
              f"ratio {ratio:.2f}x (>= {0.8 * ratio:.2f}x): {'PASS' if ok else 'FAIL'}")
    return 0 if ok or a.dry_run else 1


if __name__ == "__main__":
    sys.exit(main())
