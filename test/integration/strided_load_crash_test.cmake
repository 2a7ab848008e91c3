cmake_minimum_required(VERSION 3.19)
# The AVX-512 crash autotuning hit (docs/SEARCH.md, "Stack alignment on AVX-512"), reproduced
# on a pipeline of ours: strided_pyramid's hand schedule computes g_0 per 16-wide vector of its
# x downsample, and Halide 14 gives a stride-2 load from g_0's buffer, at a constant index, an
# alignment it does not have. Checks that
#   1. the hand schedule still crashes on an AVX-512 target (the reproducer; skipped elsewhere),
#   2. the same schedule as a ScheduleText is refused, naming its line,
#   3. g_0 computed per strip of rows is accepted and matches the reference,
#   4. the plugin's pick and the candidate searches autotuning runs all match it.
# -DGEN= -DPLUGIN= -DTIME= -DWORK= -DTARGET= -DCRASH_TEXT=
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# build(NAME [ENV...] -- [GENERATOR ARGS...]): NAME.so from strided_pyramid; sets build_rc/build_err.
function(build name)
    cmake_parse_arguments(B "" "" "ENV;ARGS" ${ARGN})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env ${B_ENV} ${GEN} -g strided_pyramid -o ${WORK}
                            -e object -f ${name} target=${TARGET} ${B_ARGS}
                    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
    if(rc EQUAL 0)
        execute_process(COMMAND c++ -shared -o ${WORK}/${name}.so ${WORK}/${name}.o
                        RESULT_VARIABLE rc ERROR_VARIABLE err2)
        string(APPEND err "${err2}")
    endif()
    set(build_rc ${rc} PARENT_SCOPE)
    set(build_err "${out}${err}" PARENT_SCOPE)
endfunction()

function(check name)
    execute_process(COMMAND ${TIME} --check ${WORK}/ref.bin ${WORK}/${name}.so:${name}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(check_rc ${rc} PARENT_SCOPE)
    set(check_out "${out}${err}" PARENT_SCOPE)
endfunction()

# expect_correct(NAME WHAT [SCHEDULE_FILE]): NAME built with the plugin (replaying SCHEDULE_FILE
# if given) must match the reference; WHAT names it in the failure.
function(expect_correct name what)
    set(env)
    if(ARGC GREATER 2)
        set(env SEXTANT_SCHEDULE_FILE=${ARGV2})
    endif()
    build(${name} ENV ${env} ARGS ${plugin_args})
    if(NOT build_rc EQUAL 0)
        message(FATAL_ERROR "${what} failed to build: ${build_err}")
    endif()
    check(${name})
    if(NOT check_rc EQUAL 0)
        message(FATAL_ERROR "${what} does not match the reference: ${check_out}")
    endif()
endfunction()

set(plugin_args -p ${PLUGIN} -s Sextant auto_schedule=true machine_params=2,16777216,40)

# The reference: Halide's default schedule (everything inlined into the output).
build(ref ARGS hazard_schedule=false)
if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "building the reference failed: ${build_err}")
endif()
execute_process(COMMAND ${TIME} --save-ref ${WORK}/ref.bin ${WORK}/ref.so:ref
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "saving the reference failed: ${err}")
endif()

# 1. The reproducer.
if("${TARGET}" MATCHES "avx512")
    build(hazard)
    if(NOT build_rc EQUAL 0)
        message(FATAL_ERROR "building the hand schedule failed: ${build_err}")
    endif()
    check(hazard)
    if(NOT check_out MATCHES "signal 11")
        message(FATAL_ERROR "the hand schedule no longer crashes (${check_rc}): ${check_out}\n"
                "If Halide has stopped miscompiling it, the search's rule "
                "(search/StridedLoadHazard.cpp) may be lifted.")
    endif()
    message(STATUS "the hand schedule crashes, as reported: ${check_out}")
else()
    message(STATUS "target ${TARGET} has no AVX-512: the reproducer is not run")
endif()

# 2. The same schedule as a ScheduleText is refused.
build(replayed ENV SEXTANT_SCHEDULE_FILE=${CRASH_TEXT} ARGS ${plugin_args})
if(build_rc EQUAL 0 OR NOT build_err MATCHES
   "schedule text line 16: Func 'g_0' computed at level 1 of 'dx_1' leaves strided vector loads")
    message(FATAL_ERROR "the crashing ScheduleText should be refused naming its line (${build_rc}):\n"
            "${build_err}")
endif()

# 3. Per strip of 8 rows of dx_1 (a serial loop over its rows inside) it is accepted. (Per row
#    it is not: dx_1's 514 columns leave a ShiftInwards vector tail at a constant index.)
file(READ ${CRASH_TEXT} text)
string(REPLACE "func g_0 at dx_1 1" "func g_0 at dx_1 0" text "${text}")
string(REPLACE "x:split16 y:outer vector 16" "x:inner y:split8 vector 16" text "${text}")
file(WRITE ${WORK}/per_strip.txt "${text}")
expect_correct(per_strip "g_0 per strip of dx_1" ${WORK}/per_strip.txt)

# 4. The pick, and the candidates of one seed's candidate searches (SEXTANT_CANDIDATES: the
#    beam pick, a greedy search, beam-4 dropout searches), each built and checked.
expect_correct(pick "the pick")
file(MAKE_DIRECTORY ${WORK}/candidates)
execute_process(COMMAND ${CMAKE_COMMAND} -E env SEXTANT_CANDIDATES=${WORK}/candidates
                        SEXTANT_SEED=1 HL_RANDOM_DROPOUT=50
                        ${GEN} -g strided_pyramid -o ${WORK}/candidates -e schedule -f cands
                        target=${TARGET} ${plugin_args}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the candidate searches failed: ${err}")
endif()
file(STRINGS ${WORK}/candidates/candidates.jsonl lines)
set(n 0)
foreach(line IN LISTS lines)
    string(JSON schedule GET "${line}" schedule_text)
    file(WRITE ${WORK}/c${n}.txt "${schedule}")
    expect_correct(c${n} "candidate ${n} (${WORK}/c${n}.txt)" ${WORK}/c${n}.txt)
    math(EXPR n "${n} + 1")
endforeach()
if(n LESS 8)
    message(FATAL_ERROR "expected at least 8 candidates, got ${n}")
endif()
message(STATUS "strided load test passed: ${n} candidates and the pick match the reference")
