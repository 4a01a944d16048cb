# LibTorch from a PyTorch installation (a torch wheel unpacked as in a site-packages:
# <root>/torch/{include,lib,share} with <root>/nvidia/... beside it for a CUDA build), as
# an imported target, without find_package(Torch).
#
# Why not find_package(Torch): the wheel's TorchConfig.cmake of a CUDA build includes
# Caffe2/public/cuda.cmake, which calls enable_language(CUDA) and
# find_package(CUDAToolkit REQUIRED): it needs nvcc and a full CUDA toolkit, which neither
# a PyTorch installation nor the CUDA libraries PyPI ships with it (nvidia-* wheels: the
# shared libraries and runtime headers, no compiler) provide. Linking C++ against LibTorch
# needs none of that: the headers, libtorch/libtorch_cpu/libc10, and for the CUDA backend
# libtorch_cuda/libc10_cuda linked with --no-as-needed (nothing references their symbols
# directly: loading them registers the CUDA backend, as the wheel's own
# torch_cuda_library target does). libtorch_cuda.so finds the nvidia-* libraries through
# its own RPATH ($ORIGIN/../../nvidia/<lib>/lib), so no LD_LIBRARY_PATH is needed.
#
#   torch_tidy_libtorch_wheel(<root> <target>)
#
# defines the INTERFACE IMPORTED target <target> and sets in the caller's scope:
#   <target>_VERSION        the wheel's torch/version.py __version__ (e.g. 2.13.0+cu130)
#   <target>_INCLUDE_DIRS   torch/include and torch/include/torch/csrc/api/include
#   <target>_CUDA           TRUE when the wheel has libtorch_cuda.so
#   <target>_C10_CUDA       libc10_cuda.so, or empty
# A wheel built with the pre-C++11 libstdc++ ABI (torch < 2.7) stops the configuration.
# The compile definitions are the wheel's own (Caffe2Targets.cmake's
# INTERFACE_COMPILE_DEFINITIONS of torch_cpu and torch_cuda).
function(torch_tidy_libtorch_wheel root target)
  set(torch "${root}/torch")
  foreach(required include/torch/csrc/api/include/torch/torch.h lib/libtorch_cpu.so
                   lib/libc10.so lib/libtorch.so version.py)
    if(NOT EXISTS "${torch}/${required}")
      message(FATAL_ERROR "torch-tidy: ${torch} is not a LibTorch from a torch wheel "
                          "(no ${required}); scripts/fetch-libtorch2.sh --libraries makes one")
    endif()
  endforeach()
  file(STRINGS "${torch}/version.py" version_line REGEX "^__version__")
  string(REGEX REPLACE "^__version__ *= *'([^']*)'.*" "\\1" version "${version_line}")

  # Wheels before torch 2.7 were built with the pre-C++11 libstdc++ ABI; their
  # TorchConfig.cmake says so in TORCH_CXX_FLAGS. Code built against them must use it
  # too, and the suite links Debian's GoogleTest (the C++11 ABI): stop with a clear
  # message rather than at the linker's undefined std::string symbols.
  set(config_file "${torch}/share/cmake/Torch/TorchConfig.cmake")
  if(EXISTS "${config_file}")
    file(STRINGS "${config_file}" old_abi REGEX "_GLIBCXX_USE_CXX11_ABI=0")
    if(old_abi)
      message(FATAL_ERROR "torch-tidy: ${torch} (torch ${version}) is built with the pre-C++11 "
                          "libstdc++ ABI (_GLIBCXX_USE_CXX11_ABI=0 in its TorchConfig.cmake); the "
                          "runtime suite links GoogleTest built with the C++11 ABI: use torch 2.7 or "
                          "later (scripts/libtorch2-version.txt)")
    endif()
  endif()

  set(definitions "")
  set(targets_file "${torch}/share/cmake/Caffe2/Caffe2Targets.cmake")
  if(EXISTS "${targets_file}")
    file(READ "${targets_file}" targets)
    foreach(lib torch_cpu torch_cuda)
      if(targets MATCHES "set_target_properties\\(${lib} PROPERTIES[^)]*INTERFACE_COMPILE_DEFINITIONS \"([^\"]*)\"")
        list(APPEND definitions ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()

  set(include_dirs "${torch}/include" "${torch}/include/torch/csrc/api/include")
  set(libs "${torch}/lib/libtorch.so" "${torch}/lib/libtorch_cpu.so" "${torch}/lib/libc10.so")
  set(cuda FALSE)
  set(c10_cuda "")
  if(EXISTS "${torch}/lib/libtorch_cuda.so")
    set(cuda TRUE)
    set(c10_cuda "${torch}/lib/libc10_cuda.so")
    list(APPEND libs "-Wl,--no-as-needed,${torch}/lib/libtorch_cuda.so,${c10_cuda}" "-Wl,--as-needed")
    # c10/cuda's headers include the CUDA runtime's (cuda_runtime_api.h), which the
    # nvidia-cuda-runtime wheel ships under nvidia/<cu*>/include.
    file(GLOB cuda_headers "${root}/nvidia/*/include/cuda_runtime_api.h")
    if(NOT cuda_headers)
      message(FATAL_ERROR "torch-tidy: ${torch} is a CUDA build, but no "
                          "${root}/nvidia/*/include/cuda_runtime_api.h: fetch its CUDA libraries "
                          "(scripts/fetch-libtorch2.sh --libraries)")
    endif()
    list(GET cuda_headers 0 cuda_header)
    get_filename_component(cuda_include "${cuda_header}" DIRECTORY)
    list(APPEND include_dirs "${cuda_include}")
  else()
    list(FILTER definitions EXCLUDE REGEX "NCCL|NVSHMEM")
  endif()

  add_library(${target} INTERFACE IMPORTED)
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${include_dirs}"
    INTERFACE_COMPILE_DEFINITIONS "${definitions}"
    INTERFACE_LINK_LIBRARIES "${libs}")
  # The build tree's programs find torch/lib at run time (CMake's build RPATH holds only
  # the directories of libraries it links by path, which a -Wl, flag hides from it).
  set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_OPTIONS
    "-Wl,-rpath,${torch}/lib")

  set(${target}_VERSION "${version}" PARENT_SCOPE)
  set(${target}_INCLUDE_DIRS "${include_dirs}" PARENT_SCOPE)
  set(${target}_CUDA "${cuda}" PARENT_SCOPE)
  set(${target}_C10_CUDA "${c10_cuda}" PARENT_SCOPE)
endfunction()
