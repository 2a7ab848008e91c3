#!/usr/bin/env python3
"""bench_report.py: collect a scripts/bench.sh results directory into results.json, a
Markdown table (results.md, also printed) and a chart of runtime relative to Adams2019
(runtime_vs_adams2019.png). Runtimes are those of the default allocator; where the run also
timed with the allocator trap switched off ('trap_off' variant), the rows carry those too
(min_ms_trap_off, ...) and results.md has a second table with the ratio.
Two best-known columns, each with every Sextant schedule's runtime over it and the geomean:
- best known (others): per pipeline the fastest schedule of the run that Sextant's live search
  did not pick: Adams2019, Li2018, Mullapudi2016, the expert hand schedules and the known
  ScheduleTexts ([expert]'s "best schedule anyone knows"; vs_best_other in the rows);
- the run's fastest: the same with Sextant's own columns counted too (vs_best_known), so a
  ratio is never below 1 and two columns holding one schedule read the faster of its timings.
Usage: bench_report.py RESULTS_DIR [--quiet]"""
import json
import math
import os
import sys

ORDER = ["reference", "default", "sextant-learned", "sextant-analytical", "adams2019", "li2018",
         "mullapudi2016", "expert", "known"]
# Schedulers that do not count towards the best-known schedule.
NOT_CANDIDATES = {"reference", "default"}
# Sextant's live searches: counted in the run's fastest, not in the best known of the others.
SEXTANT_PREFIX = "sextant-"
BASELINE = "adams2019"
TRAP_OFF = "trap_off"
# Copied from each timing line into a row (suffix _trap_off for the trap-off variant).
TIMING_FIELDS = ["min_ms", "median_ms", "samples", "rounds", "round_spread", "minflt_per_run",
                 "nvcsw_per_run", "nivcsw_per_run", "busy_fraction", "busy_rounds",
                 "converged_rounds", "slow_retries", "round_slowdown"]


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def collect(out):
    config = json.loads(read(os.path.join(out, "config.json"), "{}") or "{}")
    rows = []
    for p in sorted(os.listdir(out)):
        pdir = os.path.join(out, p)
        if not os.path.isdir(pdir):
            continue
        timings = {}
        for line in (read(os.path.join(pdir, "timing.jsonl"), "") or "").splitlines():
            try:
                t = json.loads(line)
            except ValueError:
                continue
            timings[(t["pipeline"].rsplit(":", 1)[1], t.get("variant", "default"))] = t
        scheds = [s for s in os.listdir(pdir) if os.path.isdir(os.path.join(pdir, s))]
        scheds.sort(key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s))
        for s in scheds:
            sdir = os.path.join(pdir, s)
            fn = read(os.path.join(sdir, "function"), "")
            row = {"pipeline": p, "scheduler": s, "status": read(os.path.join(sdir, "status"), "fail"),
                   "reason": read(os.path.join(sdir, "reason"), "")}
            m = (read(os.path.join(sdir, "gen.measure"), "") or "").split()
            if len(m) == 3:
                row["schedule_s"] = float(m[1])
                row["peak_mib"] = int(m[2]) / 1024.0
            check = read(os.path.join(sdir, "check.json"))
            if check:
                try:
                    row["max_rel_err"] = json.loads(check).get("max_rel_err")
                except ValueError:
                    pass
            t = timings.get((fn, "default"))
            off = timings.get((fn, TRAP_OFF))
            if row["status"] == "ok":
                if t and "min_ms" in t:
                    for k in TIMING_FIELDS:
                        if k in t:
                            row[k] = t[k]
                    if off and "min_ms" in off:
                        for k in TIMING_FIELDS:
                            if k in off:
                                row[k + "_" + TRAP_OFF] = off[k]
                        row["allocator_ratio"] = t["min_ms"] / off["min_ms"]
                    elif off:
                        row["reason_" + TRAP_OFF] = off.get("error", "no timing")
                elif t:
                    row["status"] = "fail"
                    row["reason"] = "timing failed (%s): %s" % (t.get("failure_kind", "?"),
                                                              t.get("error", ""))
                elif s == "reference" and not config.get("time_reference", 1):
                    row["status"] = "untimed" # checked only (--no-time-reference)
                else:
                    row["status"] = "fail"
                    row["reason"] = row["reason"] or "no timing recorded"
            rows.append(row)
    # Ratios to the baseline measured in the same run.
    base = {r["pipeline"]: r["min_ms"] for r in rows if r["scheduler"] == BASELINE and "min_ms" in r}
    for r in rows:
        if "min_ms" in r and r["pipeline"] in base:
            r["vs_" + BASELINE] = r["min_ms"] / base[r["pipeline"]]
    # Ratios to the fastest schedule of the pipeline in the same run: of every scheduler, and of
    # the schedulers other than Sextant's searches.
    for key, counts in (("best_known", lambda s: True),
                        ("best_other", lambda s: not s.startswith(SEXTANT_PREFIX))):
        add_best(rows, key, counts)
    return config, rows


def add_best(rows, key, counts):
    """Sets KEY_ms, KEY_by and vs_KEY on every timed row: the fastest timed row of its pipeline
    among the schedulers that counts(scheduler) accepts (the reference and default never)."""
    best = {}
    for r in rows:
        s = r["scheduler"]
        if "min_ms" in r and s not in NOT_CANDIDATES and counts(s):
            if r["pipeline"] not in best or r["min_ms"] < best[r["pipeline"]][0]:
                best[r["pipeline"]] = (r["min_ms"], s)
    for r in rows:
        if "min_ms" in r and r["pipeline"] in best:
            r[key + "_ms"], r[key + "_by"] = best[r["pipeline"]]
            r["vs_" + key] = r["min_ms"] / r[key + "_ms"]


def best_known_geomeans(rows, key="best_known"):
    """Per scheduler: geomean and max of runtime / KEY over the pipelines it ran."""
    out = {}
    for s in {r["scheduler"] for r in rows} - NOT_CANDIDATES:
        vals = [r["vs_" + key] for r in rows if r["scheduler"] == s and "vs_" + key in r]
        if vals:
            out[s] = {"geomean": math.exp(sum(math.log(v) for v in vals) / len(vals)),
                      "max": max(vals), "pipelines": len(vals)}
    return out


def allocator_geomeans(rows):
    """Per scheduler: geomean of default / trap-off runtime over its timed pipelines."""
    out = {}
    for s in sorted({r["scheduler"] for r in rows},
                    key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s)):
        vals = [r["allocator_ratio"] for r in rows if r["scheduler"] == s and "allocator_ratio" in r]
        if vals:
            out[s] = {"geomean": math.exp(sum(math.log(v) for v in vals) / len(vals)),
                      "max": max(vals), "pipelines": len(vals)}
    return out


def geomeans(rows):
    out = {}
    for s in sorted({r["scheduler"] for r in rows},
                    key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s)):
        vals = [r["vs_" + BASELINE] for r in rows if r["scheduler"] == s and "vs_" + BASELINE in r]
        n_total = len({r["pipeline"] for r in rows if r["scheduler"] == s})
        if vals:
            out[s] = {"geomean": math.exp(sum(math.log(v) for v in vals) / len(vals)),
                      "pipelines": len(vals), "of": n_total}
        else:
            out[s] = {"geomean": None, "pipelines": 0, "of": n_total}
    return out


def fmt(v, spec):
    return format(v, spec) if v is not None else "-"


def markdown(config, rows, gm, agm=None, bgm=None):
    lines = []
    if config:
        lines.append(f"Command: `{config.get('command', 'scripts/bench.sh').strip()}`  ")
        lines.append(f"Machine: {config.get('cpu', '?')}, {config.get('cores', '?')} cores; "
                     f"target={config.get('target')} machine_params={config.get('machine_params')} "
                     f"HL_BEAM_SIZE={config.get('beam')} rounds={config.get('rounds', 1)} "
                     f"reps<={config.get('reps')}; "
                     f"{config.get('date', '')}, git {config.get('git', '')}")
        lines.append("")
    scheds = []
    for r in rows:
        if r["scheduler"] not in scheds:
            scheds.append(r["scheduler"])
    scheds.sort(key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s))
    pipes = sorted({r["pipeline"] for r in rows})
    cell = {(r["pipeline"], r["scheduler"]): r for r in rows}
    lines.append("Runtime with the default allocator, best over fresh processes, ms (ratio to "
                 "Adams2019 in brackets; FAIL = see below):")
    lines.append("")
    def runtime_cell(r, s):
        if r is None:
            return ""
        if r["status"] == "untimed":
            return "-"
        if r["status"] == "absent":
            return ""
        if r["status"] != "ok":
            return "FAIL"
        if "vs_" + BASELINE in r and s != BASELINE:
            return f"{r['min_ms']:.3g} ({r['vs_' + BASELINE]:.2f}x)"
        return f"{r['min_ms']:.3g}"

    def table(make_cell):
        lines.append("| pipeline | " + " | ".join(scheds) + " |")
        lines.append("|---|" + "---:|" * len(scheds))
        for p in pipes:
            lines.append(f"| {p} | " + " | ".join(make_cell(cell.get((p, s)), s) for s in scheds)
                         + " |")

    table(runtime_cell)
    gcells = []
    for s in scheds:
        g = gm.get(s, {})
        gcells.append(f"{g['geomean']:.2f}x ({g['pipelines']}/{g['of']})" if g.get("geomean") else "-")
    lines.append("| **geomean vs Adams2019** | " + " | ".join(gcells) + " |")
    lines.append("")
    sextants = [s for s in scheds if s.startswith(SEXTANT_PREFIX)]
    views = [("best_other", "Against the best known schedule of the others (the fastest of this "
              "run's schedules that Sextant's searches did not pick: Adams2019, Li2018, "
              "Mullapudi2016, expert, known): Sextant runtime / its runtime."),
             ("best_known", "Against the run's fastest schedule (Sextant's own columns counted "
              "too, so never below 1): Sextant runtime / its runtime.")]
    for key, title in views if sextants else []:
        if not any(key + "_ms" in r for r in rows):
            continue
        lines.append(title)
        lines.append("")
        lines.append(f"| pipeline | {key.replace('_', ' ')} ms | by | " +
                     " | ".join(s + " / best" for s in sextants) + " |")
        lines.append("|---|---:|---|" + "---:|" * len(sextants))
        for p in pipes:
            some = next((r for r in rows if r["pipeline"] == p and key + "_ms" in r), None)
            if some is None:
                continue
            ratios = []
            for s in sextants:
                r = cell.get((p, s))
                ratios.append(f"{r['vs_' + key]:.2f}" if r and "vs_" + key in r else "FAIL")
            lines.append(f"| {p} | {some[key + '_ms']:.3g} | {some[key + '_by']} | " +
                         " | ".join(ratios) + " |")
        bcells = []
        for s in sextants:
            g = (bgm or {}).get(key, {}).get(s)
            bcells.append(f"**{g['geomean']:.3f}** (max {g['max']:.2f}, {g['pipelines']})" if g else "-")
        lines.append("| **geomean (max)** | | | " + " | ".join(bcells) + " |")
        lines.append("")
    if any("allocator_ratio" in r for r in rows):
        env = config.get("trap_off_env", "MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_ raised")
        lines.append("Allocator trap: runtime with the default allocator / runtime with the trap "
                     f"switched off (`{env.replace(',', ' ')}`), same run, interleaved; in "
                     "brackets minor page faults per run, default -> trap off:")
        lines.append("")
        def trap_cell(r, s):
            if r is None or "allocator_ratio" not in r:
                return "" if r is None else "-"
            return (f"{r['allocator_ratio']:.2f} ({r.get('minflt_per_run', 0):.0f} -> "
                    f"{r.get('minflt_per_run_' + TRAP_OFF, 0):.0f})")

        table(trap_cell)
        acells = []
        for s in scheds:
            g = (agm or {}).get(s)
            acells.append(f"{g['geomean']:.3f} (max {g['max']:.2f})" if g else "-")
        lines.append("| **geomean (max)** | " + " | ".join(acells) + " |")
        lines.append("")
    lines.append("All rows (autoschedule = wall time of the generator run, incl. code generation):")
    lines.append("")
    lines.append("| pipeline | scheduler | result | min ms | median ms | vs Adams2019 | "
                 "min ms trap off | faults/run | process spread | autoschedule s | peak MiB |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sorted(rows, key=lambda r: (r["pipeline"], ORDER.index(r["scheduler"])
                                         if r["scheduler"] in ORDER else 99)):
        result = {"ok": "ok", "untimed": "checked, not timed",
                  "absent": "none: " + r["reason"].replace("|", "/")}.get(
            r["status"], "FAILURE: " + r["reason"].replace("|", "/"))
        lines.append(f"| {r['pipeline']} | {r['scheduler']} | {result} | "
                     f"{fmt(r.get('min_ms'), '.4g')} | {fmt(r.get('median_ms'), '.4g')} | "
                     f"{fmt(r.get('vs_' + BASELINE), '.2f')} | "
                     f"{fmt(r.get('min_ms_' + TRAP_OFF), '.4g')} | {fmt(r.get('minflt_per_run'), '.0f')} | "
                     f"{fmt(r.get('round_spread'), '.2f')} | {fmt(r.get('schedule_s'), '.1f')} | "
                     f"{fmt(r.get('peak_mib'), '.0f')} |")
    return "\n".join(lines) + "\n"


def chart(path, rows, gm):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_report.py: matplotlib not available; no chart written", file=sys.stderr)
        return False
    scheds = [s for s in gm if s != "reference"]
    pipes = sorted({r["pipeline"] for r in rows}) + ["geomean"]
    cell = {(r["pipeline"], r["scheduler"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(pipes) + 2), 5))
    width = 0.8 / max(1, len(scheds))
    for i, s in enumerate(scheds):
        xs, ys, fails = [], [], []
        for j, p in enumerate(pipes):
            x = j - 0.4 + width * (i + 0.5)
            v = gm[s]["geomean"] if p == "geomean" else cell.get((p, s), {}).get("vs_" + BASELINE)
            if v:
                xs.append(x)
                ys.append(v)
            elif p != "geomean" and (p, s) in cell and cell[(p, s)]["status"] != "absent":
                fails.append(x)
        ax.bar(xs, ys, width, label=s)
        if fails:
            ax.plot(fails, [1.0] * len(fails), "x", color="red", markersize=6)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(pipes)))
    ax.set_xticklabels(pipes, rotation=45, ha="right")
    ax.set_ylabel("runtime / Adams2019 runtime (lower is better)")
    ax.set_title("Runtime relative to Adams2019 (red x: scheduler failed)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    quiet = "--quiet" in sys.argv
    config, rows = collect(out)
    gm = geomeans(rows)
    agm = allocator_geomeans(rows)
    bgm = {key: best_known_geomeans(rows, key) for key in ("best_other", "best_known")}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"config": config, "rows": rows, "geomean_vs_" + BASELINE: gm,
                   "geomean_allocator_ratio": agm, "geomean_vs_best_known": bgm["best_known"],
                   "geomean_vs_best_other": bgm["best_other"]}, f, indent=1)
    md = markdown(config, rows, gm, agm, bgm)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md)
    if not quiet:
        chart(os.path.join(out, "runtime_vs_adams2019.png"), rows, gm)
        print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
