#!/usr/bin/env python3
"""Runs a command and prints `exit status N` (or `signal N`), discarding its
output, so that a test can check for exactly status 1 rather than `not`'s
any-non-zero."""
import subprocess
import sys

rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("signal %d" % -rc if rc < 0 else "exit status %d" % rc)
