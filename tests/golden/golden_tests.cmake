# tests/golden/golden_tests.cmake — every CSV the CLI writes on sample_data/ compared with the copy saved in
# tests/golden/ (cases in tests/golden/cases.txt; scripts/dev/make-golden.sh regenerates them).
add_executable(golden_compare ${aw_test_support_dir}/golden_compare.cpp)

file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/golden/cases.txt golden_cases)
foreach(line IN LISTS golden_cases)
  if(line MATCHES "^#" OR line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" fields "${line}")
  list(GET fields 0 name)
  list(GET fields 1 outputs)
  list(GET fields 2 arguments)
  set(tolerance "")  # an optional fourth field: golden_compare's TOLERANCE for this case
  list(LENGTH fields field_count)
  if(field_count GREATER 3)
    list(GET fields 3 tolerance)
  endif()
  string(REPLACE " " "^^" arguments "${arguments}")
  add_test(NAME golden.${name}
           COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:attention-cli> -DCOMPARE=$<TARGET_FILE:golden_compare>
                   -DSAMPLES=${PROJECT_SOURCE_DIR}/sample_data -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR}/golden_out/${name}
                   -DGOLDEN_DIR=${CMAKE_CURRENT_SOURCE_DIR}/golden -DNAME=${name} "-DARGS=${arguments}"
                   "-DOUTPUTS=${outputs}" "-DTOLERANCE=${tolerance}" -P ${aw_test_support_dir}/run_golden.cmake)
  set_tests_properties(golden.${name} PROPERTIES LABELS golden)
endforeach()

add_test(NAME golden.compare_tolerance
         COMMAND ${CMAKE_COMMAND} -DCOMPARE=$<TARGET_FILE:golden_compare>
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/golden_out/compare_tolerance
                 -P ${aw_test_support_dir}/golden_compare_check.cmake)
set_tests_properties(golden.compare_tolerance PROPERTIES LABELS golden)
