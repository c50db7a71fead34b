# The runtime's sources, relative to runtime/. One list for the project's
# build (runtime/CMakeLists.txt) and the GPU machine's (bench/gpu, built
# from runtime/ alone), so that the two cannot drift apart.
set(TMC_RUNTIME_SOURCE_NAMES
  cpu/cpu_executor.cpp
  cpu/grid_shadow.cpp
  cpu/profile.cpp
  cpu/wgmma_descriptor.cpp
  cuda_driver.cpp
  graph_plan.cpp
  json.cpp
  kernel_signature.cpp
  output_check.cpp
  runtime.cpp)
