"""The current table of the cast benchmark for docs/results/quantize.md: from
one or more bench_quantize.py results.json files, the newest figures of each
(case, shape), one line each, with the peers' speedups and the run they came
from.

  python3 docs/results/tools/current_table.py LABEL=results.json [LABEL=results.json ...]

LABEL names the run on the page (e.g. 2026-11-27-h100-28); later files win
over earlier ones for a (case, shape) they both measured. Prints markdown.
"""
import json
import sys


def peer_kind(impl):
    if "Triton" in impl:
        return "triton"
    if "compile" in impl:
        return "compile"
    if "eager" in impl:
        return "eager"
    return None


def main(argv):
    newest, order, runs = {}, [], []
    for arg in argv:
        label, path = arg.split("=", 1)
        d = json.load(open(path))
        env = d.get("env", {})
        runs.append((label, d.get("date", "?"), env.get("device", "?"),
                     (env.get("commit") or "?")[:7], round(d.get("copy_gbs", 0))))
        for r in d["rows"]:
            key = (r["case"], r["shape"])
            if key not in order:
                order.append(key)
            slot = newest.setdefault(key, {})
            if slot.get("_label") not in (None, label):
                slot.clear()
            slot["_label"] = label
            if r["impl"] == "fpxc":
                slot["fpxc"] = r
            elif "fpxc_speedup" in r and peer_kind(r["impl"]):
                slot[peer_kind(r["impl"])] = r["fpxc_speedup"]
    print("| run | date | GPU | commit | copy GB/s |")
    print("| --- | --- | --- | --- | ---: |")
    seen = set()
    for run in runs:
        if (run[0], run[3]) not in seen:
            seen.add((run[0], run[3]))
            print("| " + " | ".join(str(v) for v in run) + " |")
    print()
    print("| case | shape | fpxc µs | % copy | % same-size copy | check | x torch.compile | x Triton | run |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |")
    for key in order:
        s = newest[key]
        f = s.get("fpxc")
        if not f or "median_ms" not in f:
            continue
        sp = lambda k: f"{s[k]:.2f}" if k in s else ""  # noqa: E731
        same = f.get("pct_copy_same")
        print(f"| {key[0]} | {key[1]} | {f['median_ms'] * 1e3:.1f} | {f['pct_copy']:.1f} | "
              f"{'' if same is None else f'{same:.1f}'} | {f.get('check', '')} | {sp('compile')} | "
              f"{sp('triton')} | {s['_label']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
