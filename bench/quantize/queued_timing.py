"""GPU time per call of work queued back to back from Python (what the
package's benchmarks report: the host work of each call overlaps the GPU's),
and the device-to-device copy bandwidth those figures are compared with."""
import time

import torch


def queued_us(fn, reps=30):
    """Mean GPU time per call of fn(i) over `reps` calls queued back to back
    (one warm-up call first)."""
    fn(0)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(reps):
        fn(i)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


def graph_us(fn, reps=20, replays=5):
    """Mean GPU time per call of fn(i) with no host work in it: `reps` calls
    captured in a CUDA graph, the graph replayed `replays` times. None where
    fn cannot be captured (or there is no GPU: a CPU dry run)."""
    if not torch.cuda.is_available():
        return None
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(0)
        fn(1)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            for i in range(reps):
                fn(i)
    except Exception:  # noqa: BLE001 (what cannot be captured is reported as such)
        torch.cuda.synchronize()
        return None
    g.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        g.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / (reps * replays)


def copy_bandwidth(dev, mib=1024):
    """(GB/s, the line to print) of a device-to-device copy of `mib` MiB
    (1 GiB for the figures; less in a CPU dry run), bytes read + written."""
    src = torch.empty(mib << 20, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    us = queued_us(lambda i: dst.copy_(src))
    gbs = 2 * src.numel() / us / 1e3
    return gbs, (f"{torch.cuda.get_device_name()}: device-to-device copy {mib} MiB {us:.1f} us, "
                 f"{gbs:.0f} GB/s (read + write); torch {torch.__version__}")


def add_dry_run_options(ap):
    """--device and --copy-mib, for a CPU dry run of a benchmark script (its
    flow and checks; the timings mean nothing there)."""
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--copy-mib", type=int, default=1024)


class HostEvent:
    """torch.cuda.Event's look-alike on the host clock, for CPU dry runs."""

    def __init__(self, enable_timing=True):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3
