import json, hashlib, sys
# split.py IN: writes val.jsonl (15% of pipelines by md5) and train_F.jsonl for F in 25,50,100 (% of the other pipelines)
def bucket(p, salt): return int(hashlib.md5((salt + p).encode()).hexdigest(), 16) % 100
outs = {f: open(f'train_{f}.jsonl', 'w') for f in (25, 50, 100)}
val = open('val.jsonl', 'w'); n = {}
for line in open(sys.argv[1]):
    d = json.loads(line); p = d['pipeline'] if isinstance(d['pipeline'], str) else json.dumps(d['pipeline'])
    if bucket(p, 'val') < 15: val.write(line); n['val'] = n.get('val', 0) + 1; continue
    b = bucket(p, 'sub')
    for f, o in outs.items():
        if b < f: o.write(line); n[f] = n.get(f, 0) + 1
print(n)
