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

TARGET = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41"
MACHINE = "2,16777216,40"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("out")
    ap.add_argument("--generator", default="build/bench/sextant_bench_generators")
    ap.add_argument("--rounds", type=int, default=3, help="the rounds each candidate was timed")
    args = ap.parse_args()
    n = 0
    with open(args.out, "w") as out:
        for p in sorted(os.listdir(args.dir)):
            d = os.path.join(args.dir, p)
            if not os.path.isfile(os.path.join(d, "times.tsv")):
                continue
            options = {"generator": os.path.abspath(args.generator), "generator_args": [],
                       "generator_name": p, "machine_params": MACHINE, "select": "neighbourhood",
                       "target": TARGET}
            workload = {"created": "2026-11-30T00:00:00.000Z", "featurizer_version": 8,
                        "identity": f"user:sextant_bench_generators:{p}()", "kind": "user",
                        "machine": "machine_params=" + MACHINE,
                        "options": json.dumps(options, sort_keys=True),
                        "sextant_version": "neighbourhood", "target": TARGET}
            out.write(json.dumps({"workload": workload}) + "\n")
            with open(os.path.join(d, "times.tsv")) as f:
                timed = {row[0]: (float(row[1]), float(row[2]))
                         for row in (line.split() for line in f) if row}
            for i, (lo, med) in sorted(timed.items()):
                with open(os.path.join(d, i + ".txt")) as f:
                    text = f.read()
                record = {"compile_s": 0.0, "created": workload["created"], "error": None,
                          "featurizer_version": 8, "repeats": args.rounds,
                          "runtime_median_s": med / 1e3, "runtime_min_s": lo / 1e3,
                          "schedule_text": text, "source": "neighbourhood:" + i}
                out.write(json.dumps({"record": record, "workload": workload}) + "\n")
                n += 1
    print(f"{n} records written to {args.out}")


if __name__ == "__main__":
    main()
