# Every runtime test program names its parameterised tests readably: asked for
# its test list (what gtest_discover_tests and ctest's output show), no test
# may carry GoogleTest's byte dump of a parameter ("# GetParam() = 32-byte
# object <71-06 85-71 ...>"), which is what a parameter type without a PrintTo
# overload (or operator<<) prints.
#
#   cmake "-DPROGRAMS=prog1|prog2|..." -P readable-parameter-names.cmake
if(NOT DEFINED PROGRAMS)
  message(FATAL_ERROR "readable-parameter-names.cmake: -DPROGRAMS=a|b|... is required")
endif()
string(REPLACE "|" ";" programs "${PROGRAMS}")
set(unreadable "")
set(parameterised 0)
foreach(program IN LISTS programs)
  if(program STREQUAL "")
    continue()
  endif()
  execute_process(COMMAND "${program}" --gtest_list_tests
    RESULT_VARIABLE status OUTPUT_VARIABLE listing ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${program} --gtest_list_tests failed (${status}):\n${errors}")
  endif()
  get_filename_component(name "${program}" NAME)
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(line MATCHES "GetParam\\(\\) = (.*)$")
      math(EXPR parameterised "${parameterised} + 1")
      if(CMAKE_MATCH_1 MATCHES "^[0-9]+-byte object <")
        string(APPEND unreadable "  ${name}: ${line}\n")
      else()
        message(STATUS "${name}: ${line}")
      endif()
    endif()
  endforeach()
endforeach()
if(NOT unreadable STREQUAL "")
  message(FATAL_ERROR "parameterised tests named by their bytes (give the "
                      "parameter type a PrintTo overload):\n${unreadable}")
endif()
message(STATUS "${parameterised} parameterised tests, all with readable parameters")
