"""The Triton peer of bench/gemm/run.py: a fused dequant-matmul y = x @ (w * s)^T
with the weight as fp8 codes (N, K, row-major, as torch stores them) and one
fp32 scale per output channel, bf16/f16 x and y, written as a Triton user
would write it (issue 38 asks for the best one can make):

- the fp8 tile is loaded as it is stored and converted to x's dtype in
  registers (`w.to(tl.bfloat16)`), tl.dot accumulates in fp32, and the channel
  scale multiplies the accumulator once at the end (exact: one scale a column);
- decode shapes (M <= 64) run a split-K kernel: each program takes every
  SPLIT_K-th K block of one (BLOCK_M, BLOCK_N) tile and adds its partial sums
  into an fp32 buffer with atomics, so that M = 1 still spreads the weight
  over every SM; a cast to x's dtype follows;
- larger M runs a grouped-order tiled GEMM that stores x's dtype directly;
- both are autotuned over a handful of configurations per (M, N, K), pruned
  by M so tuning stays short.

`available()` says whether triton imports; run.py prints that it is missing
otherwise. Requires a GPU with fp8 conversions (sm_89+; Triton 3.x).
"""

try:
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001 (any import failure: no peer)
    triton = None
    _WHY = f"{type(e).__name__}: {e}"
else:
    _WHY = ""

import torch


def available():
    """(True, "") when triton imports, else (False, why)."""
    return triton is not None, _WHY


if triton is not None:

    def _splitk_configs():
        out = []
        for bn in (64, 128):
            for bk in (128, 256):
                for sk in (1, 4, 8, 16):
                    out.append(triton.Config({"BLOCK_M": 16, "BLOCK_N": bn, "BLOCK_K": bk,
                                              "SPLIT_K": sk}, num_warps=4, num_stages=4))
        for bk in (128, 256):
            for sk in (2, 4, 8):
                out.append(triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": bk,
                                          "SPLIT_K": sk}, num_warps=4, num_stages=4))
                out.append(triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": bk,
                                          "SPLIT_K": sk}, num_warps=4, num_stages=3))
        return out

    def _prune_splitk(configs, named_args, **kwargs):
        m = named_args["M"]
        want = 16 if m <= 16 else (32 if m <= 32 else 64)
        kept = [c for c in configs if c.kwargs["BLOCK_M"] == want]
        return kept or configs

    @triton.autotune(configs=_splitk_configs(), key=["M", "N", "K"],
                     prune_configs_by={"early_config_prune": _prune_splitk},
                     reset_to_zero=["acc_ptr"])
    @triton.jit
    def _wo_splitk(x_ptr, w_ptr, s_ptr, acc_ptr, M, N, K, stride_xm, stride_wn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   SPLIT_K: tl.constexpr):
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        pid_k = tl.program_id(2)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        m_ok = offs_m < M
        n_ok = offs_n < N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(pid_k, tl.cdiv(K, BLOCK_K), SPLIT_K):
            k = kb * BLOCK_K + offs_k
            k_ok = k < K
            x = tl.load(x_ptr + offs_m[:, None] * stride_xm + k[None, :],
                        mask=m_ok[:, None] & k_ok[None, :], other=0.0)
            # (BLOCK_K, BLOCK_N): the weight's rows are output channels
            w = tl.load(w_ptr + offs_n[None, :] * stride_wn + k[:, None],
                        mask=n_ok[None, :] & k_ok[:, None], other=0.0,
                        eviction_policy="evict_first")
            acc = tl.dot(x, w.to(x.dtype), acc)
        s = tl.load(s_ptr + offs_n, mask=n_ok, other=0.0)
        acc = acc * s[None, :]
        out = acc_ptr + offs_m[:, None] * N + offs_n[None, :]
        mask = m_ok[:, None] & n_ok[None, :]
        if SPLIT_K == 1:
            tl.store(out, acc, mask=mask)
        else:
            tl.atomic_add(out, acc, mask=mask, sem="relaxed")

    def _gemm_configs():
        out = []
        for bm, bn, bk, w, st in ((128, 128, 64, 8, 3), (128, 256, 64, 8, 3),
                                  (64, 256, 64, 8, 3), (128, 128, 128, 8, 3),
                                  (128, 64, 64, 4, 4), (64, 128, 64, 4, 4)):
            out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                                      "GROUP_M": 8}, num_warps=w, num_stages=st))
        return out

    @triton.autotune(configs=_gemm_configs(), key=["M", "N", "K"])
    @triton.jit
    def _wo_gemm(x_ptr, w_ptr, s_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr):
        pid = tl.program_id(0)
        grid_m = tl.cdiv(M, BLOCK_M)
        grid_n = tl.cdiv(N, BLOCK_N)
        # grouped order: GROUP_M row tiles share the weight tiles in L2
        width = GROUP_M * grid_n
        group = pid // width
        first_m = group * GROUP_M
        size_m = min(grid_m - first_m, GROUP_M)
        pid_m = first_m + (pid % width) % size_m
        pid_n = (pid % width) // size_m
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        m_ok = offs_m < M
        n_ok = offs_n < N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(0, tl.cdiv(K, BLOCK_K)):
            k = kb * BLOCK_K + offs_k
            k_ok = k < K
            x = tl.load(x_ptr + offs_m[:, None] * stride_xm + k[None, :],
                        mask=m_ok[:, None] & k_ok[None, :], other=0.0)
            w = tl.load(w_ptr + offs_n[None, :] * stride_wn + k[:, None],
                        mask=n_ok[None, :] & k_ok[:, None], other=0.0)
            acc = tl.dot(x, w.to(x.dtype), acc)
        s = tl.load(s_ptr + offs_n, mask=n_ok, other=0.0)
        acc = acc * s[None, :]
        tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :],
                 acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


SPLITK_MAX_M = 64


def wo_matmul(x, w, s):
    """y = x @ (w.float() * s).T in x's dtype: x (M, K) bf16/f16, w (N, K)
    float8_e4m3fn/float8_e5m2, s (N,) or (N, 1) float32, all contiguous on
    one GPU."""
    if triton is None:
        raise RuntimeError(f"triton is not available ({_WHY})")
    m, k = x.shape
    n = w.shape[0]
    s = s.reshape(n)
    if m <= SPLITK_MAX_M:
        acc = torch.zeros((m, n), dtype=torch.float32, device=x.device)

        def grid(meta):
            return (triton.cdiv(n, meta["BLOCK_N"]), triton.cdiv(m, meta["BLOCK_M"]),
                    meta["SPLIT_K"])

        _wo_splitk[grid](x, w, s, acc, m, n, k, x.stride(0), w.stride(0))
        return acc.to(x.dtype)
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    _wo_gemm[grid](x, w, s, y, m, n, k, x.stride(0), w.stride(0), y.stride(0))
    return y
