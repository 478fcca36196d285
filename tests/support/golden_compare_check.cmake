# tests/support/golden_compare_check.cmake — golden_compare's tolerance on a hand-made table: a value near 0
# is held to its column's scale, a delta also to its row's metric, the sixth digit may move, the
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
