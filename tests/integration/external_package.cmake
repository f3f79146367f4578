# Installs the build tree into a fresh temporary prefix and builds examples/external against it
# twice: with CMake's find_package(conveyor) and with pkg-config (conveyor.pc, static link), then
# runs both programs and the installed CLI. Any step that fails fails the test. Run by CTest:
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DC_COMPILER=... -DCXX_COMPILER=... -P this_file
foreach(var BUILD_DIR SOURCE_DIR C_COMPILER CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "external_package.cmake needs -D${var}=...")
  endif()
endforeach()

# mkdtemp: a new folder of our own under the temporary directory, removed at the end.
set(tmp_base "$ENV{TMPDIR}")
if(NOT tmp_base)
  set(tmp_base /tmp)
endif()
execute_process(COMMAND mktemp -d "${tmp_base}/conveyor-external-XXXXXX"
  OUTPUT_VARIABLE work OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${work}")
  message(FATAL_ERROR "cannot create a temporary folder under ${tmp_base}")
endif()
set(prefix ${work}/prefix)

# Runs a command; on failure removes the temporary folder and fails with its output.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE_RECURSE "${work}")
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_in text pattern what)
  if(NOT text MATCHES "${pattern}")
    file(REMOVE_RECURSE "${work}")
    message(FATAL_ERROR "${what}: expected /${pattern}/ in:\n${text}")
  endif()
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file include/conveyor/conveyor.h include/conveyor/runtime.hpp
        share/conveyor/python/conveyor_plot/__main__.py share/conveyor/sim/mcore/mcore.h
        share/conveyor/sim/mcore/mcore.ld share/conveyor/sim/mcore/crt0.S
        lib/cmake/conveyor/conveyorConfig.cmake lib/cmake/conveyor/conveyorConfigVersion.cmake
        lib/pkgconfig/conveyor.pc bin/conveyor)
  if(NOT EXISTS ${prefix}/${file})
    file(REMOVE_RECURSE "${work}")
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

# The installed CLI: its version, `conveyor plot` drawing with the installed Python package, and
# `conveyor sim` finding the installed programs (when the cross compiler built them).
step("conveyor --version" ${prefix}/bin/conveyor --version)
expect_in("${step_output}" "conveyor 0\\.2\\." "conveyor --version")
step("installed conveyor plot" ${prefix}/bin/conveyor plot
  ${SOURCE_DIR}/tests/data/stream_threads.json -o ${work}/stream.png)
if(NOT EXISTS ${work}/stream.png)
  file(REMOVE_RECURSE "${work}")
  message(FATAL_ERROR "the installed conveyor plot wrote no figure")
endif()
if(EXISTS ${prefix}/share/conveyor/sim/programs/hello.elf)
  step("installed conveyor sim" ${prefix}/bin/conveyor sim run hello --mesh 2x2 --json)
  # The installed programs, not the build tree's that the library was configured with.
  expect_in("${step_output}" "share/conveyor/sim/programs/hello\\.elf" "installed conveyor sim")
endif()

# 1. CMake: find_package(conveyor 0.2) + conveyor::conveyor.
set(launcher "")
find_program(ccache_program ccache)
if(ccache_program)
  set(launcher -DCMAKE_C_COMPILER_LAUNCHER=${ccache_program}
               -DCMAKE_CXX_COMPILER_LAUNCHER=${ccache_program})
endif()
step("configure examples/external" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/external
  -B ${work}/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher})
step("build examples/external" ${CMAKE_COMMAND} --build ${work}/build)
step("run external_c (find_package)" ${work}/build/external_c)
expect_in("${step_output}" "cpu: ok" "external_c")
message(STATUS "${step_output}")
step("run external_cpp (find_package)" ${work}/build/external_cpp)
expect_in("${step_output}" "v\\[999\\] = 2.25" "external_cpp")

# A consumer asking for another minor version is refused (SameMinorVersion).
file(WRITE ${work}/wrong_version/CMakeLists.txt
  "cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES NONE)\nfind_package(conveyor 0.1 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${work}/wrong_version -B ${work}/wrong_version/b
  -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  file(REMOVE_RECURSE "${work}")
  message(FATAL_ERROR "find_package(conveyor 0.1) accepted version 0.2")
endif()

# 2. pkg-config: the same sources, compiled and linked by hand against the static library.
find_program(pkg_config pkg-config)
if(pkg_config)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
  # A shared libconveyor is found at run time as a user would point to it (no rpath from .pc).
  set(ENV{LD_LIBRARY_PATH} "${prefix}/lib:$ENV{LD_LIBRARY_PATH}")
  step("pkg-config" ${pkg_config} --static --cflags --libs conveyor)
  string(STRIP "${step_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  step("compile main.c (pkg-config)" ${C_COMPILER} -std=c99 -c
    ${SOURCE_DIR}/examples/external/main.c -o ${work}/main_c.o ${flags})
  # A C program linked with the C compiler: conveyor.pc must bring the C++ runtime itself.
  step("link main.c (pkg-config)" ${C_COMPILER} ${work}/main_c.o -o ${work}/external_c_pc
    ${flags})
  step("run external_c (pkg-config)" ${work}/external_c_pc)
  expect_in("${step_output}" "cpu: ok" "external_c (pkg-config)")
  step("build main.cpp (pkg-config)" ${CXX_COMPILER} -std=c++20
    ${SOURCE_DIR}/examples/external/main.cpp -o ${work}/external_cpp_pc ${flags})
  step("run external_cpp (pkg-config)" ${work}/external_cpp_pc)
else()
  message(STATUS "pkg-config not found: that half is not checked")
endif()

file(REMOVE_RECURSE "${work}")
