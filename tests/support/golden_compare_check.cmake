# tests/support/golden_compare_check.cmake — golden_compare's tolerance on a hand-made table: a value near 0
# is held to its column's scale, a delta also to its row's metric, a bootstrap p to a few resamples, a case to
# its own tolerance; the sixth digit may move, the
# fourth may not, text must match.
# -DCOMPARE -DWORK
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/golden.csv" "# metric=ppl\nhead,delta,label\n1,-4.44318,a\n2,0.0578802,b\n")
function(expect name body code)
  file(WRITE "${WORK}/${name}.csv" "${body}")
  execute_process(COMMAND "${COMPARE}" "${WORK}/golden.csv" "${WORK}/${name}.csv" RESULT_VARIABLE got ERROR_VARIABLE err)
  if(NOT got STREQUAL "${code}")
    message(FATAL_ERROR "${name}: golden_compare exited ${got}, expected ${code}: ${err}")
  endif()
endfunction()
expect(same "# metric=ppl\nhead,delta,label\n1,-4.44318,a\n2,0.0578802,b\n" 0)
# Another CPU's last digits: 3e-5 on -4.44 (7e-6 relative), 2.2e-5 on 0.0579 (a Δ of two losses).
expect(sixth_digit "# metric=ppl\nhead,delta,label\n1,-4.44321,a\n2,0.0579024,b\n" 0)
expect(fourth_digit "# metric=ppl\nhead,delta,label\n1,-4.44418,a\n2,0.0578802,b\n" 1)
expect(small_value_off "# metric=ppl\nhead,delta,label\n1,-4.44318,a\n2,0.0588802,b\n" 1)
expect(text_differs "# metric=ppl\nhead,delta,label\n1,-4.44318,a\n2,0.0578802,c\n" 1)
expect(comment_differs "# metric=loss\nhead,delta,label\n1,-4.44318,a\n2,0.0578802,b\n" 1)
# A delta beside a perplexity of 58.7 moves with its rounding (2.7e-5: another BLAS), not by 1e-3.
file(WRITE "${WORK}/golden.csv" "head,metric,delta,p_value\n1,58.7273,-1.69868,0.002\n2,58.0123,-0.237611,0.1\n")
expect(delta_follows_metric "head,metric,delta,p_value\n1,58.7273,-1.69869,0.002\n2,58.0123,-0.237638,0.1\n" 0)
expect(delta_off "head,metric,delta,p_value\n1,58.7273,-1.69868,0.002\n2,58.0123,-0.238611,0.1\n" 1)
expect(p_value_off "head,metric,delta,p_value\n1,58.7273,-1.69868,0.002\n2,58.0123,-0.237611,0.101\n" 1)
# A bootstrap p counts resamples: with bootstrap=1000 in the comment it may step by up to 3 of 1,001
# (another CPU's rounding moves a resample across the line), not by 5; p_adjusted by 3 for each of the
# 2 rows (Holm multiplies a p by up to the number of tests), not by 8.
file(WRITE "${WORK}/golden.csv" "# bootstrap=1000\nhead,delta,p_value,p_adjusted\n1,-1.69868,0.0859141,0.171828\n2,-0.237611,0.1,0.171828\n")
expect(p_value_resamples "# bootstrap=1000\nhead,delta,p_value,p_adjusted\n1,-1.69868,0.0869131,0.173826\n2,-0.237611,0.102897,0.173826\n" 0)
expect(p_value_five_resamples "# bootstrap=1000\nhead,delta,p_value,p_adjusted\n1,-1.69868,0.0909091,0.171828\n2,-0.237611,0.1,0.171828\n" 1)
expect(p_adjusted_six_each "# bootstrap=1000\nhead,delta,p_value,p_adjusted\n1,-1.69868,0.0859141,0.179820\n2,-0.237611,0.1,0.179820\n" 1)
# A case's own tolerance (cases.txt's fourth field): 2e-3 lets −0.0101537 be −0.0101306 in a column up to
# 0.27, 1e-4 does not.
file(WRITE "${WORK}/golden.csv" "head,effect_low\n1,-0.0101537\n2,0.0165191\n3,0.27\n")
file(WRITE "${WORK}/ratio.csv" "head,effect_low\n1,-0.0101306\n2,0.0165123\n3,0.27\n")
foreach(tolerance_and_code "2e-3;0" "1e-4;1")
  list(GET tolerance_and_code 0 tolerance)
  list(GET tolerance_and_code 1 code)
  execute_process(COMMAND "${COMPARE}" "${WORK}/golden.csv" "${WORK}/ratio.csv" ${tolerance} RESULT_VARIABLE got)
  if(NOT got STREQUAL "${code}")
    message(FATAL_ERROR "tolerance ${tolerance}: golden_compare exited ${got}, expected ${code}")
  endif()
endforeach()
execute_process(COMMAND "${COMPARE}" "${WORK}/golden.csv" "${WORK}/ratio.csv" zero RESULT_VARIABLE got ERROR_VARIABLE err)
if(NOT got STREQUAL "2" OR NOT err MATCHES "TOLERANCE must be a positive number, got 'zero'")
  message(FATAL_ERROR "a bad tolerance: golden_compare exited ${got}: ${err}")
endif()
