"""Host wall time per call of a callable (what a Python caller pays when the
GPU work is small): `warmup` calls, then `calls` calls between two `sync()`s."""
import time


def per_call_us(f, calls, sync, warmup=200):
    for _ in range(warmup):
        f()
    sync()
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    sync()
    return (time.perf_counter() - t0) / calls * 1e6
