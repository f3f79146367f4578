# Read by ctest (tests/CMakeLists.txt): the unit tests that build CLBlast's kernels on PoCL share
# one lock, so that they run in turn and reuse each other's programs from PoCL's kernel cache.
foreach(test IN LISTS conveyor_unit_tests_TESTS)
  if(test MATCHES "Clblast|SyrkAndTrsm")
    set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK pocl_clblast_kernels)
  endif()
endforeach()
