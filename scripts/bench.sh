#!/usr/bin/env bash
# bench.sh: schedule every benchmark pipeline (bench/generators/) with each autoscheduler,
# check each output against a reference, time them side by side, and report.
#
# For each pipeline: the generator runs once per scheduler (timed, peak memory recorded, under
# `timeout`), each result is compiled to a shared object, the reference ("everything at root",
# the BenchRoot plugin in bench/tools/) saves its outputs, every scheduler's output is checked
# against them in its own process (integers exact, floats <= rtol relative), and the schedules
# that pass are timed with the timing protocol (measure/, docs/MEASURING.md): every schedule in
# fresh processes, interleaved over rounds, once with the default allocator and once with
# glibc's trim trap switched off (MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_ raised). Anything that
# fails (generator error, crash, timeout, wrong output) becomes a FAILURE row with its reason.
#
# Outputs (under --out): results.md (the table), results.json, runtime_vs_adams2019.png, and
# per pipeline/scheduler: the generator log, the schedule (.schedule.h), check and timing data.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
orig_args="$*"
HALIDE_PLUGINS=/usr/lib/x86_64-linux-gnu/halide14

ALL_PIPELINES="bilateral_grid bilateral_guided_upsampling box_blur camera_pipe camera_pipe_planar chroma_420 conv_relu
depthwise_separable_conv harris histogram_equalize iir_blur interpolate local_laplacian matmul
max_filter nl_means stencil_chain stencil_chain_32 stereo_match synthetic_200 unsharp_mask
wavelet_denoise"
# The held-out set (session 61): imaging pipelines written after the analytical model's terms
# and constants were set on the pipelines above. Nothing is tuned on them: they say whether what
# was tuned on the bench carries over (docs/BENCHMARKS.md, "The held-out set").
HELDOUT_PIPELINES="bloom edge_detect guided_filter jpeg_roundtrip median_3x3 resize_bicubic"
ALL_SCHEDULERS="sextant-learned sextant-analytical adams2019 li2018 mullapudi2016 expert known default"
DEFAULT_SCHEDULERS="sextant-learned,sextant-analytical,adams2019,li2018,mullapudi2016,expert,known"

pipelines=all
schedulers="$DEFAULT_SCHEDULERS"
reps=20
rounds=3
budget=2
trap_off=1
gen_timeout=600
run_timeout=300
rtol=1e-4
beam="${HL_BEAM_SIZE:-8}"
machine_params="2,16777216,40"
target=host
build_dir="$ROOT/build-bench"
out_dir=""
sextant_plugin="$ROOT/build/plugin/libautoschedule_sextant.so"
time_reference=1

usage() {
    cat <<EOF
usage: scripts/bench.sh [options]
  --pipelines LIST      comma-separated pipelines, or 'all' (default all):
                        $(echo $ALL_PIPELINES | tr ' ' ',')
                        or 'heldout', the held-out set (never tuned on):
                        $(echo $HELDOUT_PIPELINES | tr ' ' ',')
  --schedulers LIST     comma-separated, from: $(echo $ALL_SCHEDULERS | tr ' ' ',')
                        (default $DEFAULT_SCHEDULERS; 'all' = every one;
                        'default' is Halide's own default schedule, no autoscheduler;
                        'expert' the hand schedules of bench/schedules/expert/, 'known' the
                        ScheduleTexts of bench/schedules/known/: with the others, the
                        report's best-known column)
  --rounds R            fresh timed processes per schedule and allocator setting, interleaved
                        (default $rounds)
  --reps N              at most N timed runs per process; a process stops earlier once its
                        best and 3rd-best runs agree within 3% (default $reps)
  --budget S            at most S seconds of timed runs per process, once it has 3 ($budget)
  --no-trap-off         time only with the default allocator (no 'trap off' column)
  --beam N              HL_BEAM_SIZE for Adams2019 and Sextant (default \$HL_BEAM_SIZE or 8)
  --gen-timeout S       limit on one autoscheduling (generator) run (default $gen_timeout)
  --run-timeout S       limit on one check or timing process (default $run_timeout)
  --machine-params P    machine_params=P for every scheduler (default $machine_params)
  --target T            Halide target for every scheduler (default $target)
  --rtol X              float tolerance, relative to max(|reference|, 1) (default $rtol)
  --sextant-plugin PATH the Sextant plugin (default build/plugin/libautoschedule_sextant.so)
  --no-time-reference   do not time the reference (everything-at-root) schedule
  --build-dir DIR       where the bench tools are built (default build-bench)
  --out DIR             results directory (default <build-dir>/results/<date-time>)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --pipelines) pipelines="$2"; shift ;;
    --schedulers) schedulers="$2"; shift ;;
    --reps) reps="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --budget) budget="$2"; shift ;;
    --no-trap-off) trap_off=0 ;;
    --beam) beam="$2"; shift ;;
    --gen-timeout) gen_timeout="$2"; shift ;;
    --run-timeout) run_timeout="$2"; shift ;;
    --machine-params) machine_params="$2"; shift ;;
    --target) target="$2"; shift ;;
    --rtol) rtol="$2"; shift ;;
    --sextant-plugin) sextant_plugin="$2"; shift ;;
    --no-time-reference) time_reference=0 ;;
    --build-dir) build_dir="$2"; shift ;;
    --out) out_dir="$2"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

# target=host: Halide 14 reports avx512_sapphirerapids on CPUs that have AVX512-BF16 but not
# AVX512-FP16 (e.g. AMD Zen 4), then emits FP16 instructions that fault; drop that feature.
if [ "$target" = host ] && [ -x "$HALIDE_PLUGINS/get_host_target" ]; then
    target="$("$HALIDE_PLUGINS/get_host_target")"
    if ! grep -q -w avx512_fp16 /proc/cpuinfo; then
        target="${target/-avx512_sapphirerapids/}"
    fi
fi

[ "$pipelines" = all ] && pipelines="$(echo $ALL_PIPELINES | tr ' ' ',')"
[ "$pipelines" = heldout ] && pipelines="$(echo $HELDOUT_PIPELINES | tr ' ' ',')"
[ "$schedulers" = all ] && schedulers="$(echo $ALL_SCHEDULERS | tr ' ' ',')"
pipelines="${pipelines//,/ }"
schedulers="${schedulers//,/ }"
for p in $pipelines; do
    case " $(echo $ALL_PIPELINES $HELDOUT_PIPELINES) " in *" $p "*) ;; *) echo "bench.sh: unknown pipeline $p" >&2; exit 2 ;; esac
done
for s in $schedulers; do
    case " $ALL_SCHEDULERS " in *" $s "*) ;; *) echo "bench.sh: unknown scheduler $s" >&2; exit 2 ;; esac
done
[ -n "$out_dir" ] || out_dir="$build_dir/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out_dir" || exit 2
out_dir="$(cd "$out_dir" && pwd)"

# Debian's python3 has python3-matplotlib; a python3 earlier on PATH (pyenv) may not.
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3

log() { echo "[bench $(date +%H:%M:%S)] $*"; }

# ---- Build the bench tools (a standalone CMake project over bench/) ----
tools="$build_dir/tools"
generator="$tools/sextant_bench_generators"
driver="$tools/measure/sextant-time"
runtime="$tools/libsextant_bench_runtime.so"
measure="$tools/sextant_bench_measure"
root_plugin="$tools/libautoschedule_benchroot.so"
expert_plugin="$tools/libautoschedule_benchexpert.so"
log "building bench tools in $tools"
cmake_gen=()
command -v ninja >/dev/null && cmake_gen=(-G Ninja)
if [ ! -f "$tools/CMakeCache.txt" ]; then
    cmake -S "$ROOT/bench" -B "$tools" "${cmake_gen[@]}" -DCMAKE_BUILD_TYPE=Release \
        >"$out_dir/tools-configure.log" 2>&1 ||
        { echo "bench.sh: configuring bench/ failed; see $out_dir/tools-configure.log" >&2; exit 1; }
fi
cmake "$tools" "-DSEXTANT_BENCH_TARGET=$target" >>"$out_dir/tools-configure.log" 2>&1
nice cmake --build "$tools" -j 2 >"$out_dir/tools-build.log" 2>&1 ||
    { echo "bench.sh: building bench tools failed; see $out_dir/tools-build.log" >&2; exit 1; }

# ---- Schedulers: plugin, name for -s, extra environment ----
scheduler_plugin() {
    case "$1" in
    sextant-* | known) echo "$sextant_plugin" ;;
    expert) echo "$expert_plugin" ;;
    adams2019) echo "$HALIDE_PLUGINS/libautoschedule_adams2019.so" ;;
    li2018) echo "$HALIDE_PLUGINS/libautoschedule_li2018.so" ;;
    mullapudi2016) echo "$HALIDE_PLUGINS/libautoschedule_mullapudi2016.so" ;;
    reference) echo "$root_plugin" ;;
    default) echo "" ;;
    esac
}
scheduler_name() {
    case "$1" in
    sextant-* | known) echo Sextant ;;
    expert) echo BenchExpert ;;
    adams2019) echo Adams2019 ;;
    li2018) echo Li2018 ;;
    mullapudi2016) echo Mullapudi2016 ;;
    reference) echo BenchRoot ;;
    default) echo "" ;;
    esac
}
scheduler_env() {
    case "$1" in
    sextant-learned) echo "SEXTANT_COST_MODEL=learned" ;;
    sextant-analytical) echo "SEXTANT_COST_MODEL=analytical" ;;
    *) echo "" ;;
    esac
}

# The allocator setting of the second timing column: glibc then neither trims the heap top on
# free nor returns it, so per-iteration buffers do not page-fault back in (docs/BENCHMARKS.md).
trap_off_env="MALLOC_TRIM_THRESHOLD_=1000000000,MALLOC_TOP_PAD_=268435456"

# The best schedules known for a pipeline that no scheduler here finds by itself: `expert` applies
# the hand-written schedule of bench/schedules/expert/ (BenchExpert plugin), `known` replays the
# ScheduleText bench/schedules/known/PIPELINE.txt (the fastest found by autotuning or by hand).
# A pipeline with neither has an empty cell ("absent"), not a failure.
known_schedule() { echo "$ROOT/bench/schedules/known/$1.txt"; }

# absent_cell DIR REASON: a scheduler with nothing for this pipeline (no expert schedule yet).
absent_cell() {
    echo absent >"$1/status"
    printf '%s\n' "$2" >"$1/reason"
    log "  $(basename "$1"): none ($2)"
}

# fail_cell DIR REASON: record a failure for one pipeline/scheduler cell.
fail_cell() {
    echo fail >"$1/status"
    printf '%s\n' "$2" >"$1/reason"
    log "  $(basename "$1"): FAILURE: $2"
}

# json_field FILE KEY: the string (or number) KEY of the last JSON line in FILE ("" if none).
json_field() {
    "$python" - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
v = ""
try:
    for line in open(sys.argv[1]):
        if line.startswith("{"):
            v = json.loads(line).get(sys.argv[2], "")
except (OSError, ValueError):
    pass
print(v)
PY
}

# last_error LOGFILE: a one-line summary of why a command failed.
last_error() {
    local line
    local rc="${2:-}"
    local sig=""
    if [ -n "$rc" ] && [ "$rc" -gt 128 ] 2>/dev/null && [ "$rc" -lt 160 ]; then
        sig="killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
    fi
    line="$(grep -E -m1 'Error|error:|Assertion|terminate|Segmentation|what\(\)|Unhandled' "$1" 2>/dev/null)"
    [ -n "$line" ] || line="$(grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1)"
    if [ -n "$sig" ]; then line="$sig${line:+: $line}"; fi
    echo "${line:0:300}"
}

# build_cell PIPELINE SCHEDULER DIR: autoschedule + compile to DIR/lib.so; 0 on success.
build_cell() {
    local p="$1" s="$2" dir="$3"
    local fn="${p}_${s//-/_}"
    local plugin name envs
    plugin="$(scheduler_plugin "$s")"
    name="$(scheduler_name "$s")"
    envs="$(scheduler_env "$s")"
    mkdir -p "$dir"
    if [ "$s" = known ]; then
        if [ ! -f "$(known_schedule "$p")" ]; then
            absent_cell "$dir" "no bench/schedules/known/$p.txt"
            return 1
        fi
        envs="SEXTANT_COST_MODEL=analytical SEXTANT_SCHEDULE_FILE=$(known_schedule "$p")"
    elif [ "$s" = expert ]; then
        envs="SEXTANT_BENCH_PIPELINE=$p"
    fi
    echo "$fn" >"$dir/function"
    local args=(-g "$p" -f "$fn" -n "$fn" -o "$dir" -t 0)
    if [ -n "$name" ]; then
        if [ ! -f "$plugin" ]; then
            fail_cell "$dir" "plugin not found: $plugin"
            return 1
        fi
        args+=(-e object,schedule -p "$plugin" -s "$name" auto_schedule=true
            "machine_params=$machine_params")
    else
        args+=(-e object)
    fi
    args+=("target=$target-no_runtime")
    echo "env HL_BEAM_SIZE=$beam $envs $generator ${args[*]}" >"$dir/command"
    # shellcheck disable=SC2086
    env HL_BEAM_SIZE="$beam" $envs "$measure" "$dir/gen.measure" \
        timeout -k 10 "$gen_timeout" "$generator" "${args[@]}" >"$dir/gen.log" 2>&1
    local rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        fail_cell "$dir" "autoscheduling timed out after ${gen_timeout}s"
        return 1
    elif [ "$s" = expert ] && grep -q "no expert schedule for" "$dir/gen.log"; then
        absent_cell "$dir" "no expert schedule in bench/schedules/expert/"
        return 1
    elif [ "$rc" != 0 ]; then
        fail_cell "$dir" "generator failed (exit $rc): $(last_error "$dir/gen.log" $rc)"
        return 1
    fi
    if ! g++ -shared -o "$dir/lib.so" "$dir/$fn.o" >>"$dir/gen.log" 2>&1; then
        fail_cell "$dir" "linking the generated object failed: $(last_error "$dir/gen.log")"
        return 1
    fi
    return 0
}

log "results: $out_dir"
log "pipelines: $pipelines"
log "schedulers: $schedulers (reference: everything at root)"
log "target=$target machine_params=$machine_params HL_BEAM_SIZE=$beam rounds=$rounds reps<=$reps"
cat >"$out_dir/config.json" <<EOF
{"command": "scripts/bench.sh $orig_args", "pipelines": "$pipelines",
 "schedulers": "$schedulers", "reps": $reps, "rounds": $rounds, "budget_s": $budget,
 "trap_off": $trap_off, "time_reference": $time_reference, "trap_off_env": "$trap_off_env", "beam": "$beam",
 "machine_params": "$machine_params", "target": "$target", "rtol": "$rtol",
 "gen_timeout_s": $gen_timeout, "host": "$(hostname)",
 "cpu": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')",
 "cores": $(nproc), "date": "$(date -Iseconds)", "git": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"}
EOF

for p in $pipelines; do
    log "== $p"
    pdir="$out_dir/$p"
    rm -rf "$pdir"
    mkdir -p "$pdir"

    # Reference.
    rdir="$pdir/reference"
    ref_ok=0
    if build_cell "$p" reference "$rdir"; then
        if timeout -k 10 "$run_timeout" "$driver" --runtime "$runtime" --save-ref "$pdir/reference.bin" \
            "$rdir/lib.so:$(cat "$rdir/function")" >"$rdir/run.log" 2>&1; then
            ref_ok=1
            echo ok >"$rdir/status"
        else
            fail_cell "$rdir" "reference run failed: $(last_error "$rdir/run.log" $?)"
        fi
    fi

    # Autoschedule, compile and check each scheduler.
    passed=()
    [ "$ref_ok" = 1 ] && [ "$time_reference" = 1 ] && passed+=(reference)
    for s in $schedulers; do
        sdir="$pdir/$s"
        rm -rf "$sdir"
        if ! build_cell "$p" "$s" "$sdir"; then continue; fi
        read -r _ secs kib <"$sdir/gen.measure"
        if [ "$ref_ok" != 1 ]; then
            fail_cell "$sdir" "no reference output to check against (reference failed)"
            continue
        fi
        # The check runs in a child of the driver, which reports a typed failure kind.
        timeout -k 10 "$((run_timeout + 30))" "$driver" --runtime "$runtime" --timeout "$run_timeout" \
            --log "$sdir/run.log" --check "$pdir/reference.bin" --rtol "$rtol" \
            "$sdir/lib.so:$(cat "$sdir/function")" >"$sdir/check.json" 2>>"$sdir/run.log"
        rc=$?
        kind="$(json_field "$sdir/check.json" failure_kind)"
        if [ "$rc" = 0 ]; then
            passed+=("$s")
            log "  $s: scheduled in ${secs}s (peak $((kib / 1024)) MiB), output OK"
        elif [ "$kind" = wrong_output ]; then
            fail_cell "$sdir" "wrong output: $(json_field "$sdir/check.json" summary)"
        elif [ "$kind" = timeout ] || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
            fail_cell "$sdir" "pipeline run timed out after ${run_timeout}s"
        elif [ "$kind" = crash ]; then
            fail_cell "$sdir" "pipeline run crashed: $(json_field "$sdir/check.json" error) $(last_error "$sdir/run.log")"
        else
            fail_cell "$sdir" "pipeline run failed (${kind:-exit $rc}): $(json_field "$sdir/check.json" error)"
        fi
    done

    # Time every schedule that passed with the protocol: each schedule x allocator setting in
    # fresh processes, interleaved over rounds; one JSON line each (failures included).
    if [ ${#passed[@]} -gt 0 ]; then
        specs=()
        for s in "${passed[@]}"; do specs+=("$pdir/$s/lib.so:$(cat "$pdir/$s/function")"); done
        variants=(--variant default)
        [ "$trap_off" = 1 ] && variants+=(--variant "trap_off:$trap_off_env")
        n_subjects=$(( ${#specs[@]} * (1 + trap_off) ))
        settings="default allocator"
        [ "$trap_off" = 1 ] && settings="default allocator and trap off"
        log "  timing ${passed[*]} ($rounds rounds in fresh processes; $settings)"
        timeout -k 10 "$(( (run_timeout + 10) * n_subjects * rounds * 3 + 60 ))" \
            "$driver" --runtime "$runtime" --time --rounds "$rounds" --max-runs "$reps" \
            --budget "$budget" --timeout "$run_timeout" --log "$pdir/timing.log" "${variants[@]}" \
            "${specs[@]}" >"$pdir/timing.jsonl" 2>>"$pdir/timing.log"
        for s in "${passed[@]}"; do
            [ -f "$pdir/$s/status" ] || echo ok >"$pdir/$s/status"
        done
    fi
    "$python" "$ROOT/scripts/bench_report.py" "$out_dir" --quiet || true
done

log "done"
"$python" "$ROOT/scripts/bench_report.py" "$out_dir"
ln -sfn "$out_dir" "$build_dir/results/latest" 2>/dev/null || true
log "results in $out_dir (results.md, results.json, runtime_vs_adams2019.png)"
