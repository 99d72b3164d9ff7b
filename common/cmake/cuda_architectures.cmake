# Which GPU architectures to compile for.
#
# Default: the GPU that is present (read with nvidia-smi, as CMake's "native" would, but
# without failing when there is none). Without a GPU (CI, laptops) we fall back to
#     TUTORIAL_FALLBACK_ARCHITECTURES = 80-real;90
# i.e. machine code for the A100 (sm_80) and the H100/H200 (sm_90), plus sm_90 PTX that newer
# GPUs compile at load time. Override with -DCMAKE_CUDA_ARCHITECTURES=... or CUDAARCHS.
set(TUTORIAL_FALLBACK_ARCHITECTURES "80-real;90" CACHE STRING
    "Architectures used when no GPU is detected at configure time")

function(tutorial_choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
  find_program(TUTORIAL_NVIDIA_SMI nvidia-smi)
  set(detected "")
  if(TUTORIAL_NVIDIA_SMI)
    execute_process(COMMAND ${TUTORIAL_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND detected ${arch})
      endforeach()
      list(REMOVE_DUPLICATES detected)
    endif()
  endif()
  if(detected)
    message(STATUS "GPU detected: compiling for sm_${detected}")
    set(CMAKE_CUDA_ARCHITECTURES "${detected}" CACHE STRING "CUDA architectures")
  else()
    message(STATUS "No GPU detected: compiling for the fallback list ${TUTORIAL_FALLBACK_ARCHITECTURES}")
    set(CMAKE_CUDA_ARCHITECTURES "${TUTORIAL_FALLBACK_ARCHITECTURES}" CACHE STRING "CUDA architectures")
  endif()
endfunction()
