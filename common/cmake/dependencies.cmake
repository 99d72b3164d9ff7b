# The dependencies, each with the package that provides it when it is missing.
find_package(CUDAToolkit REQUIRED)
find_package(Threads REQUIRED)

find_package(Catch2 QUIET)
if(NOT Catch2_FOUND)
  message(FATAL_ERROR
    "Catch2 was not found. Install it with `make deps`, or:\n"
    "  Debian/Ubuntu: sudo apt-get install catch2   (Debian 12 ships 2.13, Ubuntu 24.04 3.x)\n"
    "or point CMAKE_PREFIX_PATH at a Catch2 install.")
endif()
string(REGEX MATCH "^[0-9]+" TUTORIAL_CATCH2_MAJOR "${Catch2_VERSION}")
message(STATUS "Catch2 ${Catch2_VERSION}")
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")  # Catch.cmake: catch_discover_tests()
include(Catch)

find_package(benchmark QUIET)
if(NOT benchmark_FOUND)
  message(FATAL_ERROR
    "Google Benchmark was not found. Install it with `make deps`, or:\n"
    "  Debian/Ubuntu: sudo apt-get install libbenchmark-dev\n"
    "or point CMAKE_PREFIX_PATH at a Google Benchmark install.")
endif()
