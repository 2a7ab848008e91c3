# The plugin loads LibTorch only when the learned model is asked for: it does not link it, the
# learned model comes from libsextant_learned_model.so beside it, and bad weights are reported.
# -DGEN= -DPLUGIN= -DTRAIN= -DWORK= -DTARGET=
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK} ${WORK}/ok ${WORK}/bad)
execute_process(COMMAND readelf -d ${PLUGIN} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf failed on ${PLUGIN}")
endif()
# Library names only: an address in the section (0xfdc10) may spell "c10".
if(dyn MATCHES "\\[lib(torch|c10)")
    message(FATAL_ERROR "the plugin links LibTorch directly:\n${dyn}")
endif()
execute_process(COMMAND ${TRAIN} --synthetic 12 --epochs 1 --quiet --no-plot --out ${WORK}/train
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sextant-train failed: ${out}${err}")
endif()
set(gen_args -g with_estimates -e schedule -p ${PLUGIN} -s Sextant target=${TARGET}
    auto_schedule=true machine_params=2,16777216,40)
execute_process(COMMAND ${CMAKE_COMMAND} -E env SEXTANT_COST_MODEL=learned
                        SEXTANT_WEIGHTS=${WORK}/train/weights.sxw ${GEN} -o ${WORK}/ok ${gen_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "learned model run failed: ${out}${err}")
endif()
file(READ ${WORK}/ok/with_estimates.schedule.h sched)
if(NOT sched MATCHES "torch cost model choosing among 4 analytical-model candidates")
    message(FATAL_ERROR "schedule not made with the learned model:\n${sched}")
endif()
file(WRITE ${WORK}/bad.sxw "not weights\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env SEXTANT_COST_MODEL=learned
                        SEXTANT_WEIGHTS=${WORK}/bad.sxw ${GEN} -o ${WORK}/bad ${gen_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "truncated or corrupt")
    message(FATAL_ERROR "corrupt weights not reported (${rc}):\n${out}${err}")
endif()
message(STATUS "learned model module: ok")
