#!/usr/bin/env python3
"""A hybrid of two ScheduleTexts of the same pipeline: A's text with the named Funcs' blocks
(the `func` line and its stage lines) taken from B, to find which part of B makes it faster
(docs/BENCHMARKS.md, session 47). The plugin checks the result when it replays it
(SEXTANT_SCHEDULE_FILE): a placement that no longer fits is reported with its line.

  scripts/schedule_hybrid.py A.txt B.txt FUNC [FUNC...] > HYBRID.txt
"""
import sys


def blocks(path):
    lines = open(path).read().splitlines()
    if not lines or not lines[0].startswith("sextant-schedule"):
        sys.exit(f"schedule_hybrid.py: {path} is not a ScheduleText")
    order, by_func = [], {}
    for line in lines[1:]:
        if line.startswith("func "):
            name = line.split()[1]
            order.append(name)
            by_func[name] = [line]
        elif order:
            by_func[order[-1]].append(line)
    return lines[0], order, by_func


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    head, order, a = blocks(sys.argv[1])
    _, _, b = blocks(sys.argv[2])
    take = set(sys.argv[3:])
    missing = sorted(take - set(a) | take - set(b))
    if missing:
        sys.exit("schedule_hybrid.py: no Func " + ", ".join(missing) + " in both texts")
    out = [head]
    for f in order:
        out += b[f] if f in take else a[f]
    print("\n".join(out))


if __name__ == "__main__":
    main()
