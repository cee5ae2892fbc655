#!/usr/bin/env python3
"""Runs bench_quantize.py's whole flow on the CPU, without a GPU, to check the
script before spending GPU time on it.

    PYTHONPATH=<dir holding the fpx package> python3 bench/quantize/dryrun_cpu.py [--quick ...]

torch.cuda's events, sleep and synchronize are replaced by host-clock fakes,
tensors live on the CPU, and each fpxc artifact (really loaded with fpx.load,
so its metadata and output shapes are the real ones) is launched as fpx's CPU
numerics core (fpx.quantize on the CPU tensor) writing into the same outputs.
The timings mean nothing; the checks, the table and the files are exercised.
torch.compile peers run through inductor's CPU backend.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quantize as B  # noqa: E402
from queued_timing import HostEvent as FakeEvent  # noqa: E402


class FakeStream:
    cuda_stream = 0


class FakeProps:
    major, minor, name = 9, 0, "CPU dry run"


def fake_kernel(case, real):
    """A KernelFunction look-alike that runs the CPU numerics core."""
    torch = B.torch
    import fpxc

    def tensor_amax(x):
        h = case.numerics.get("hadamard", 0)
        xf = fpxc.hadamard(x.float(), h, case.numerics.get("hadamard_seed", 0)) if h else x.float()
        return xf.abs().amax()

    class K:
        name = real.name
        inputs = real.inputs
        outputs = real.outputs
        scalars = real.scalars
        _out_dtypes = real._out_dtypes

        def output_shapes(self, *shapes):
            return real.output_shapes(*shapes)

        def given_amax(self, x):
            # what a case given an amax is given: that of x (or of the
            # transform of x), as the real functions it comes from compute it
            return tensor_amax(x)

        def __call__(self, x, *scal, out=None):
            kw = dict(case.numerics)
            if scal:
                kw["seed"] = scal[0]
            q = fpxc.quantize(x, **kw)
            res = [q.data, q.scales]
            if out is None:
                out = [torch.empty(s, dtype=d) for s, d in
                       zip(self.output_shapes(list(x.shape)), self._out_dtypes)]
            if case.transposed:
                # fpxc writes the codes as the transpose of the package's
                # layout; column-block scales already come (..., K, N/32)
                res[0] = res[0].transpose(-1, -2).contiguous()
            if len(self.outputs) == 3:  # the tensor amax (of the transform, if any)
                res.append(tensor_amax(x))
            for o, r in zip(out, res):
                o.copy_(r.reshape(o.shape).view(o.dtype) if r.dtype != o.dtype and
                        r.element_size() == o.element_size() else r.reshape(o.shape))
            return tuple(out)

    k = K()

    class Native:
        @staticmethod
        def launch(stream, refs, orefs, values):
            return None

    k._fn = Native()
    return k


def main(argv):
    import torch
    B.torch = torch
    B.DEVICE = "cpu"
    torch.cuda.Event = FakeEvent
    torch.cuda._sleep = lambda cycles: None
    torch.cuda.synchronize = lambda *a: None
    torch.cuda.get_device_properties = lambda i=0: FakeProps()
    torch.cuda.get_device_name = lambda i=0: "CPU dry run"
    torch.cuda.current_stream = lambda *a: FakeStream()
    torch.cuda.empty_cache = lambda: None

    orig_load = B.Bench.load_artifacts

    def load_artifacts(self, fpxc):
        real_preload = fpxc.Artifact.preload
        fpxc.Artifact.preload = lambda self: None      # no GPU: skip the module load
        try:
            orig_load(self, fpxc)
        finally:
            fpxc.Artifact.preload = real_preload
        for c in B.CASES:
            if c.name in self.artifacts:
                self.artifacts[c.name] = fake_kernel(c, self.artifacts[c.name])

    B.Bench.load_artifacts = load_artifacts
    orig_run = B.Timer.run

    def run(self, fn, inputs, warmup=3, reps=None, **kw):
        return orig_run(self, fn, inputs, warmup=1, reps=3)

    B.Timer.run = run
    B.Timer.calibrate = lambda self: setattr(self, "cycles_per_ms", 1e6)
    B.SHAPES_2D = B.QUICK_2D = [(256, 1024)]
    B.SHAPES_3D = B.QUICK_3D = [(2, 128, 512)]
    return B.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
