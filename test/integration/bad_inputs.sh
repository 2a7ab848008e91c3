#!/usr/bin/env bash
# The bad-input table: inputs a user can get wrong, given to the plugin (through a generator)
# and to the tools, each answered by a message that names the culprit and the documented exit
# status (README "Tools and scripts"; the plugin's errors make the generator exit 255, GenGen's
# status for an error; sextant-time: 0 ok, 1 wrong output, 2 failed). Nothing may crash (a
# signal) or succeed.
# Usage: bad_inputs.sh BUILD_DIR GENERATOR WORK_DIR
set -uo pipefail
build=$(cd "$1" && pwd) gen=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
plugin=$build/plugin/libautoschedule_sextant.so
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# Fixtures: a corrupt weights file, a file that is no database, a training file of the wrong
# shape, and the with_estimates pipeline's schedule broken three ways.
head -c 3000 /dev/zero | tr '\0' 'x' > corrupt.sxw
printf 'SEXTANT-WEIGHTS 1\n{"format_version": 1}\n' > truncated.sxw
echo "not a database" > notdb.db
echo '{"pipeline": 1}' > old.jsonl
run_gen=("$gen" -g with_estimates -o "$work/out" -p "$plugin" -s Sextant -e static_library,h,schedule
         target=host-no_runtime auto_schedule=true machine_params=2,16777216,40)
mkdir -p out
SEXTANT_DUMP_SCHEDULE=good.txt "${run_gen[@]}" >/dev/null 2>&1 || { echo "fixture: generator failed"; exit 1; }
sed 's/^func blur inline/func blur at out 7\n  stage 0 loops x:inner y:inner vector 1 unroll 1 parallel 0/' good.txt > level.txt
sed 's/^func out root/func out inline/' good.txt > output_inline.txt
sed 's/vector [0-9]*/vector fast/' good.txt > syntax.txt

# name | expected exit status | what the message must say (grep -E) | command
table=$(cat <<ROWS
plugin: unknown option|255|Unknown option SEXTANT_BEAMSIZE|env SEXTANT_BEAMSIZE=4 ${run_gen[*]}
plugin: bad beam size|255|HL_BEAM_SIZE=abc is not an integer|env HL_BEAM_SIZE=abc ${run_gen[*]}
plugin: negative time limit|255|SEXTANT_TIME_LIMIT=-3 is not an integer in \[0|env SEXTANT_TIME_LIMIT=-3 ${run_gen[*]}
plugin: unknown cost model|255|SEXTANT_COST_MODEL=bogus: expected 'learned' or 'analytical'|env SEXTANT_COST_MODEL=bogus ${run_gen[*]}
plugin: unknown search-space key|255|SEXTANT_SEARCH_SPACE=bogus_key=3: unknown key 'bogus_key'|env SEXTANT_SEARCH_SPACE=bogus_key=3 ${run_gen[*]}
plugin: missing weights|255|no learned weights at '/nonexistent.sxw'|env SEXTANT_COST_MODEL=learned SEXTANT_WEIGHTS=/nonexistent.sxw ${run_gen[*]}
plugin: corrupt weights|255|weights file '$work/corrupt.sxw' is truncated or corrupt|env SEXTANT_COST_MODEL=learned SEXTANT_WEIGHTS=$work/corrupt.sxw ${run_gen[*]}
plugin: truncated weights|255|weights file '$work/truncated.sxw'|env SEXTANT_COST_MODEL=learned SEXTANT_WEIGHTS=$work/truncated.sxw ${run_gen[*]}
plugin: missing schedule file|255|cannot read schedule file '/nonexistent.txt'|env SEXTANT_SCHEDULE_FILE=/nonexistent.txt ${run_gen[*]}
plugin: schedule syntax|255|schedule text line 3: expected 'vector N unroll N parallel N'|env SEXTANT_SCHEDULE_FILE=$work/syntax.txt ${run_gen[*]}
plugin: compute_at a loop that is not there|255|schedule text line 4: level 7 is not a loop of 'out'|env SEXTANT_SCHEDULE_FILE=$work/level.txt ${run_gen[*]}
plugin: output not at root|255|schedule text line 2: Func 'out' is an output of the pipeline: it must be root|env SEXTANT_SCHEDULE_FILE=$work/output_inline.txt ${run_gen[*]}
plugin: unwritable dump path|255|cannot write '/nonexistent/dir/x.txt'|env SEXTANT_DUMP_SCHEDULE=/nonexistent/dir/x.txt ${run_gen[*]}
plugin: schedule Halide 14 miscompiles|255|schedule text line 16: Func 'g_0' computed at level 1 of 'dx_1' leaves strided vector loads|env SEXTANT_SCHEDULE_FILE=$here/strided_pyramid_crash.txt $gen -g strided_pyramid -o $work/out -p $plugin -s Sextant -e static_library target=host-no_runtime auto_schedule=true machine_params=2,16777216,40
plugin: missing estimate|255|Output Func 'out' has no estimate for dimension 1 \('y'\)|$gen -g no_estimates -o $work/out -p $plugin -s Sextant -e static_library target=host-no_runtime auto_schedule=true machine_params=2,16777216,40
generator: bad machine_params|255|Unable to parse MachineParams: abc|${run_gen[*]/machine_params=2,16777216,40/machine_params=abc}
sample: unknown flag|2|unknown argument '--bogus'|$build/sampler/sextant-sample --bogus
sample: empty seed range|2|--to must not be less than --from|$build/sampler/sextant-sample --db $work/s.db --from 5 --to 2
sample: store that is no database|1|sample store '$work/notdb.db': cannot read it as a SQLite database|$build/sampler/sextant-sample --db $work/notdb.db --export $work/x.jsonl
sample: store in a missing directory|1|cannot open sample store '/nonexistent/dir/x.db'|$build/sampler/sextant-sample --db /nonexistent/dir/x.db --from 0 --to 1
sample: import of a file that is not samples|1|$work/notdb.db:1: malformed sample line|$build/sampler/sextant-sample --db $work/new.db --import $work/notdb.db
sample: corrupt weights|1|weights file '$work/corrupt.sxw' is truncated or corrupt|$build/sampler/sextant-sample --db $work/w.db --from 0 --to 1 --weights $work/corrupt.sxw
train: missing data|1|cannot open training samples '/nonexistent.jsonl'|$build/costmodel/sextant-train --data /nonexistent.jsonl --out $work/wout
train: data from an older version|1|old.jsonl:1: missing field "schema_version"|$build/costmodel/sextant-train --data $work/old.jsonl --out $work/wout
train: bad number|2|--epochs: 'abc' is not a whole number|$build/costmodel/sextant-train --epochs abc
autotune: missing generator|1|generator binary '/nonexistent' does not exist|$build/tools/sextant-autotune --generator /nonexistent -g x --dir $work/at
autotune: no pipeline name|2|-g is required|$build/tools/sextant-autotune --generator $gen --dir $work/at
time: missing library|2|dlopen: /nonexistent.so: cannot open shared object file|$build/measure/sextant-time --time-one /nonexistent.so:f
model-bench: bad batch size|2|--sizes: 'x' is not a batch size|$build/costmodel/sextant-model-bench --sizes 1,x
random-pipeline: bad seed|2|--seed: 'abc' is not a seed|$build/random_pipelines/sextant-random-pipeline --seed abc --describe
ROWS
)
rows=0 bad=0
while IFS='|' read -r name want pattern cmd; do
    [ -z "$name" ] && continue
    rows=$((rows + 1))
    # A row that hangs fails alone, named, instead of the whole test timing out.
    out=$(timeout -k 10 120 bash -c "$cmd" 2>&1)
    got=$?
    [ "$got" = 124 ] && out="timed out after 120 s; $out"
    if [ "$got" != "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
        bad=$((bad + 1))
        echo "FAIL $name: exit $got (want $want), message must match: $pattern"
        echo "$out" | tail -5 | sed 's/^/    /'
    else
        echo "ok   $name: exit $got: $(grep -E -m1 -o -- "$pattern.{0,40}" <<<"$out")"
    fi
done <<<"$table"
echo "$rows bad inputs, $((rows - bad)) answered as documented, $bad not"
[ "$bad" -eq 0 ] && [ "$rows" -ge 20 ]
