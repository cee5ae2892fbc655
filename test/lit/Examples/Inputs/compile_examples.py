#!/usr/bin/env python3
"""Compiles every docs/examples/*.mlir spec for each target given, and each
docs/examples/<target>/*.mlir spec (a kernel form only that target has) for
its own target when it is among those given.

Usage: compile_examples.py FPXC EXAMPLES_DIR OUT_DIR --emit KIND TARGET...

Prints `OK <example> <target>` or `FAIL <example> <target>` plus fpxc's
output per pair and exits 1 if any pair failed, so that a new example is
compiled by the tests without anyone adding a RUN line for it.
"""
import glob
import os
import subprocess
import sys


def main(argv):
    fpxc, examples, out = argv[1], argv[2], argv[3]
    if argv[4] != "--emit":
        sys.exit("usage: compile_examples.py FPXC EXAMPLES OUT --emit KIND TARGET...")
    emit, targets = argv[5], argv[6:]
    specs = sorted(glob.glob(os.path.join(examples, "*.mlir")))
    if not specs:
        print("FAIL no examples in " + examples)
        return 1
    os.makedirs(out, exist_ok=True)
    failed = 0
    jobs = [(spec, target) for spec in specs for target in targets]
    for target in targets:
        for spec in sorted(glob.glob(os.path.join(examples, target, "*.mlir"))):
            jobs.append((spec, target))
    print("examples: %d" % len(specs))
    for spec, target in jobs:
        stem = os.path.splitext(os.path.basename(spec))[0]
        dest = os.path.join(out, "%s.%s.%s" % (stem, target, emit))
        r = subprocess.run([fpxc, "compile", spec, "--target", target,
                            "--emit", emit, "-o", dest],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        ok = r.returncode == 0 and os.path.getsize(dest) > 0
        print("%s %s %s" % ("OK" if ok else "FAIL", stem, target))
        if not ok:
            failed += 1
            sys.stdout.write(r.stdout)
    print("failed: %d" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
