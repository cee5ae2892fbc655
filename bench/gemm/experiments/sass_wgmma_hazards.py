#!/usr/bin/env python3
"""Checks a kernel's SASS for writes to the A registers of in-flight HGMMAs.

wgmma with a register A operand reads those registers asynchronously, until a
`wgmma.wait_group` retires its group, and ptxas does not model that read: a
value decoded for the next stage may be given the registers of a group still
in flight (wgmma-one-group-in-flight.patch, NOTES.md). This walks the kernel's
main loop (the backward branch after the last HGMMA) twice, tracks the
registers each committed group reads (HGMMA ... gsb0 ends a group;
WARPGROUP.DEPBAR.LE gsb0, N leaves N groups in flight) and prints every
instruction whose destination is one of them.

    ptxas -arch=sm_90a k.ptx -o k.cubin
    cuobjdump -sass -fun KERNEL k.cubin > k.sass   # or nvdisasm; PyPI: nvidia-cuda-cuobjdump
    python3 sass_wgmma_hazards.py k.sass           # exit 1 with hazards
"""
import re
import sys


def instructions(path):
    out = []
    for line in open(path):
        m = re.search(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def main_loop(ins):
    last = max(i for i, (_, t) in enumerate(ins) if 'HGMMA' in t)
    for j in range(last, len(ins)):
        m = re.search(r'BRA (0x[0-9a-f]+)', ins[j][1])
        if m and int(m.group(1), 16) < ins[j][0]:
            start = next(i for i, (a, _) in enumerate(ins) if a == int(m.group(1), 16))
            return ins[start:j + 1]
    sys.exit("no loop after the last HGMMA")


def strip_predicate(text):
    return text.split(None, 1)[1] if text.startswith('@') else text


def hazards(body):
    groups, current, found = [], set(), []
    for _ in range(2):  # the second pass sees the groups the first left in flight
        for addr, text in body:
            t = strip_predicate(text)
            op, _, operands = t.partition(' ')
            if op.startswith('HGMMA'):
                a = re.match(r'\s*R\d+,\s*R(\d+)', operands)
                if a:  # register A operand: four registers
                    current |= {int(a.group(1)) + i for i in range(4)}
                if 'gsb0' in operands:
                    groups.append(current)
                    current = set()
                continue
            m = re.search(r'DEPBAR\.LE gsb0, 0x(\d+)', t)
            if m:
                del groups[:max(0, len(groups) - int(m.group(1)))]
                continue
            d = re.match(r'\s*R(\d+)\b', operands)
            if not d:
                continue
            width = 4 if '.128' in op else 2 if '.64' in op else 1
            written = {int(d.group(1)) + i for i in range(width)}
            live = set().union(*groups) if groups else set()
            if written & live:
                found.append((addr, text, sorted(written & live)))
    return found


def main():
    body = main_loop(instructions(sys.argv[1]))
    found = hazards(body)
    for addr, text, regs in found:
        print(f"HAZARD {addr:#06x} {text}   (A registers in flight: {regs})")
    print(f"{len(body)} instructions in the loop, {sum('HGMMA' in t for _, t in body)} HGMMA, "
          f"{len(found)} hazards")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
