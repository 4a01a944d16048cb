# Makes the tool-fixed twin of an example: examples/<check>/buggy.cpp with its
# namespace renamed to `fixed`, then `torch-tidy --fix` with that check alone.
# Linked in place of fixed.cpp, it runs the runtime suite's whole test program
# (test/runtime/CMakeLists.txt, the <check>_autofix_test targets): the fix-its'
# own output must pass the same tests as the hand-written twin.
#
#   cmake -DTIDY=... -DCHECK=... -DEXAMPLE=buggy.cpp -DOUT=... -DINCLUDES="a;b" [-DPCH=libtorch.pch] -P autofix.cmake
foreach(var TIDY CHECK EXAMPLE OUT INCLUDES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "autofix.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${EXAMPLE}" source)
string(REPLACE "namespace buggy" "namespace fixed" source "${source}")
string(REPLACE "buggy::" "fixed::" source "${source}")
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
set(tmp "${OUT}.tmp.cpp")
file(WRITE "${tmp}" "${source}")

if(NOT STD)
  set(STD -std=c++17)
endif()
set(flags ${STD} -DTORCH_TIDY_EXAMPLE_NO_MAIN)
foreach(dir IN LISTS INCLUDES)
  if(NOT dir STREQUAL "/usr/include") # already the compiler's own
    list(APPEND flags -isystem "${dir}")
  endif()
endforeach()
# LibTorch precompiled by the build (test/CMakeLists.txt), when there is one: the
# same diagnostics and fix-its, without parsing <torch/torch.h> again.
if(PCH AND EXISTS "${PCH}")
  list(APPEND flags -include-pch "${PCH}")
endif()
execute_process(
  COMMAND "${TIDY}" --quiet --fix "--checks=-*,${CHECK}" "${tmp}" -- ${flags}
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "autofix.cmake: torch-tidy --fix failed on ${EXAMPLE} (${status}):\n${output}")
endif()
file(READ "${tmp}" fixed)
if(fixed STREQUAL source)
  message(FATAL_ERROR "autofix.cmake: ${CHECK} applied no fix-it to ${EXAMPLE}")
endif()
file(RENAME "${tmp}" "${OUT}")
