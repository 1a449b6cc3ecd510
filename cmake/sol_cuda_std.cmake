# CMake 3.25 predates nvcc 13 and does not know its C++20 flag; tell it. Included after
# enable_language(CUDA) by sol's build and by solConfig.cmake for a user that compiles CUDA.
if(CMAKE_CUDA_COMPILER_LOADED AND (NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION OR
                                   CMAKE_CUDA20_STANDARD_COMPILE_OPTION STREQUAL ""))
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
