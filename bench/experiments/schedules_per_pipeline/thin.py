"""thin.py IN OUT PERCENT: every pipeline of IN, about PERCENT% of its samples (by md5 of the line).

Session 73's experiment: at the same number of samples, do more pipelines with fewer schedules
each teach the nets more than fewer pipelines with all of theirs? (README.md)"""
import hashlib
import re
import sys

rx = re.compile(r'"pipeline": ?"([^"]*)"')
src, dst, percent = sys.argv[1], sys.argv[2], int(sys.argv[3])
kept, pipelines, every = 0, set(), set()
with open(dst, 'w') as out:
    for line in open(src):
        p = rx.search(line).group(1)
        every.add(p)
        if int(hashlib.md5(line.encode()).hexdigest(), 16) % 100 < percent:
            out.write(line)
            kept += 1
            pipelines.add(p)
print(f'{kept} samples of {len(pipelines)} pipelines (of {len(every)})')
