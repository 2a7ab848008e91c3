#!/usr/bin/env python3
"""A timed neighbourhood directory as a sample shard `sextant-sample --import` takes.

    to_shard.py DIR OUT.jsonl [--generator build/bench/sextant_bench_generators]

DIR: scripts/neighbourhood.sh's --out (unpacked from an archive here). Each pipeline becomes
one user workload (the bench generator, the neighbourhood's target and machine params) and
each timed candidate one record: its ScheduleText, minimum and median seconds over the
interleaved rounds, source `neighbourhood:NN`. Export with `sextant-sample --db D --import
OUT.jsonl --generators-dir build/bench --export-training T.jsonl`."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
from neighbourhood import read_times  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("out")
    ap.add_argument("--generator", default="build/bench/sextant_bench_generators")
    ap.add_argument("--rounds", type=int, default=3, help="the rounds each candidate was timed")
    # What scripts/neighbourhood.sh generated with on sessions 57 and 59's machines: the build's
    # SEXTANT_HOST_TARGET and the bench's machine params.
    ap.add_argument("--target",
                    default="x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41")
    ap.add_argument("--machine-params", default="2,16777216,40")
    args = ap.parse_args()
    n = 0
    with open(args.out, "w") as out:
        for p in sorted(os.listdir(args.dir)):
            d = os.path.join(args.dir, p)
            if not os.path.isfile(os.path.join(d, "times.tsv")):
                continue
            options = {"generator": os.path.abspath(args.generator), "generator_args": [],
                       "generator_name": p, "machine_params": args.machine_params,
                       "select": "neighbourhood", "target": args.target}
            workload = {"created": "2026-11-30T00:00:00.000Z", "featurizer_version": 8,
                        "identity": f"user:sextant_bench_generators:{p}()", "kind": "user",
                        "machine": "machine_params=" + args.machine_params,
                        "options": json.dumps(options, sort_keys=True),
                        "sextant_version": "neighbourhood", "target": args.target}
            out.write(json.dumps({"workload": workload}) + "\n")
            lows, medians = read_times(d, 1), read_times(d, 2)
            for i, lo in sorted(lows.items()):
                med = medians[i]
                with open(os.path.join(d, f"{i:02d}.txt")) as f:
                    text = f.read()
                record = {"compile_s": 0.0, "created": workload["created"], "error": None,
                          "featurizer_version": 8, "repeats": args.rounds,
                          "runtime_median_s": med / 1e3, "runtime_min_s": lo / 1e3,
                          "schedule_text": text, "source": f"neighbourhood:{i:02d}"}
                out.write(json.dumps({"record": record, "workload": workload}) + "\n")
                n += 1
    print(f"{n} records written to {args.out}")


if __name__ == "__main__":
    main()
