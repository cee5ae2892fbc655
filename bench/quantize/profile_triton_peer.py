#!/usr/bin/env python3
"""Runs one Triton peer (triton_peers.PEERS[key]) a few times on random bf16,
for Nsight Compute. Without --config it autotunes and prints the chosen
configuration (last line: `config BM,BK,WARPS`); with --config BM,BK,WARPS it launches that one directly (no
autotuning launches to skip under ncu).

    python3 bench/quantize/profile_triton_peer.py --key mx_rows_floor --shape 8192,5120
    ncu --kernel-name regex:_mx_rows python3 bench/quantize/profile_triton_peer.py \\
        --key mx_rows_floor --shape 8192,5120 --config 32,256,4
"""
import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triton_peers as T  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--key", required=True, choices=sorted(T.PEERS))
    p.add_argument("--shape", required=True, help="M,K (rows) or E,N,K (experts)")
    p.add_argument("--config", default="", help="BM,BK,WARPS: launch this configuration")
    p.add_argument("--reps", type=int, default=4)
    a = p.parse_args()
    shape = [int(v) for v in a.shape.split(",")]
    x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
    if not a.config:
        for _ in range(a.reps):
            T.PEERS[a.key](x)
        torch.cuda.synchronize()
        cfg = T._KERNELS[a.key].best_config
        print(f"{a.key} {a.shape}: {T.best_config(a.key)}")
        print(f"config {cfg.kwargs['BM']},{cfg.kwargs['BK']},{cfg.num_warps}")  # for --config
        return
    bm, bk, warps = (int(v) for v in a.config.split(","))
    if a.key not in ("mx_rows_floor", "mx_rows_rceil"):
        sys.exit("--config: mx_rows_* only")
    m, k = shape
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device="cuda")
    s = torch.empty(m, k // 32, dtype=torch.uint8, device="cuda")
    for _ in range(a.reps):
        T.mx_rows_launch(x, q, s, a.key.rsplit("_", 1)[1], bm, bk, warps)
    torch.cuda.synchronize()
    print(f"{a.key} {a.shape} config {a.config}: {a.reps} launches")


if __name__ == "__main__":
    main()
