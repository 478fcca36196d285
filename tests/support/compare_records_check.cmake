# tests/support/compare_records_check.cmake — compare with runs recorded by `eval --json` instead of model
# folders gives the same summary and tests as evaluating the folders, a record that was measured
# differently (another file, other windows, no metric) is refused with one line naming it, and runs
# trained on different kinds of device get a warning naming them.
# -DCLI=attention-cli -DFIXTURES=cli_fixtures -DWORK=scratch folder
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(corpus ${FIXTURES}/corpus.txt)

function(run_cli expect_exit out_var)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code STREQUAL expect_exit)
    message(FATAL_ERROR "${ARGN}: exit ${code}, expected ${expect_exit}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${out_var}_err "${err}" PARENT_SCOPE)
endfunction()

# Each "others" run recorded on the corpus with windows of 8.
foreach(model tiny_lm tiny_bet_sf)
  run_cli(0 record eval --model ${FIXTURES}/${model} --text ${corpus} --window 8 --json)
  file(WRITE ${WORK}/${model}.json "${record}")
endforeach()
set(seeded --variant seeded=${FIXTURES}/seeds_bet_sf/seed-2,${FIXTURES}/seeds_bet_sf/seed-3)
run_cli(0 from_models compare ${seeded} --variant others=${FIXTURES}/tiny_lm,${FIXTURES}/tiny_bet_sf
        --text ${corpus} --window 8)
run_cli(0 from_records compare ${seeded} --variant others=${WORK}/tiny_lm.json,${WORK}/tiny_bet_sf.json
        --text ${corpus} --window 8)
if(NOT from_models STREQUAL from_records)
  message(FATAL_ERROR "recorded runs changed the comparison:\n${from_models}\nagainst\n${from_records}")
endif()
if(NOT from_records_err MATCHES "others run 1/2 \\([^)]*tiny_lm.json, recorded\\): perplexity [0-9.]+")
  message(FATAL_ERROR "progress does not say the run was recorded:\n${from_records_err}")
endif()

function(expect_refusal message)
  run_cli(1 out compare ${seeded} ${ARGN})
  string(STRIP "${out_err}" err)
  if(NOT err STREQUAL "error: ${message}")
    message(FATAL_ERROR "expected the one line\nerror: ${message}\ngot\n${out_err}")
  endif()
endfunction()
set(records --variant others=${WORK}/tiny_lm.json,${WORK}/tiny_bet_sf.json)
expect_refusal("${WORK}/tiny_lm.json: was evaluated with windows of 8 tokens; compare it with --window 8"
               ${records} --text ${corpus} --window 4)
expect_refusal("${WORK}/tiny_lm.json: was evaluated with windows of 8 tokens; compare it with --window 8"
               ${records} --text ${corpus})
file(WRITE ${WORK}/other.txt "w2 w3 w4 w5 w6\n")
expect_refusal("${WORK}/tiny_lm.json: was evaluated on '${corpus}', this comparison is on '${WORK}/other.txt'"
               ${records} --text ${WORK}/other.txt --window 8)
file(WRITE ${WORK}/no_metric.json "{\"data\": \"${corpus}\", \"loss\": 1.5}")
expect_refusal("${WORK}/no_metric.json: holds no accuracy or perplexity; compare takes `attention-cli eval --json` results"
               --variant others=${WORK}/no_metric.json,${WORK}/tiny_bet_sf.json --text ${corpus} --window 8)
file(WRITE ${WORK}/broken.json "{\"perplexity\": ")
run_cli(1 out compare ${seeded} --variant others=${WORK}/broken.json,${WORK}/tiny_bet_sf.json --text ${corpus} --window 8)
if(NOT out_err MATCHES "broken.json: is not valid JSON")
  message(FATAL_ERROR "a broken record is not named:\n${out_err}")
endif()

# Records whose training summaries name different devices: the comparison runs, with one warning line
# naming each device's runs; runs on one device get none.
file(READ ${WORK}/tiny_lm.json lm_record)
file(READ ${WORK}/tiny_bet_sf.json bet_record)
string(REGEX REPLACE "^{" "{\"training\": {\"device\": \"cuda:0\"}," gpu_record "${lm_record}")
string(REGEX REPLACE "^{" "{\"training\": {\"device\": \"cpu\"}," cpu_record "${bet_record}")
file(WRITE ${WORK}/gpu_run.json "${gpu_record}")
file(WRITE ${WORK}/cpu_run.json "${cpu_record}")
run_cli(0 mixed compare ${seeded} --variant others=${WORK}/gpu_run.json,${WORK}/cpu_run.json --text ${corpus} --window 8)
if(NOT mixed_err MATCHES "compare: warning: these runs trained on different devices, which adds to the seed-to-seed spread \\(cpu: [^\n]*cpu_run.json; cuda: ${WORK}/gpu_run.json\\)")
  message(FATAL_ERROR "no warning naming the runs of each device:\n${mixed_err}")
endif()
if(NOT mixed STREQUAL from_records)
  message(FATAL_ERROR "the device warning changed the comparison:\n${mixed}")
endif()
string(REGEX REPLACE "^{" "{\"training\": {\"device\": \"cpu\"}," cpu_lm_record "${lm_record}")
file(WRITE ${WORK}/cpu_run2.json "${cpu_lm_record}")
run_cli(0 same compare ${seeded} --variant others=${WORK}/cpu_run2.json,${WORK}/cpu_run.json --text ${corpus} --window 8)
if(same_err MATCHES "warning")
  message(FATAL_ERROR "runs on one device got a warning:\n${same_err}")
endif()
