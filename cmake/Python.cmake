# The Python module conveyor._core (python/, docs/python.md), built with nanobind.
# CONVEYOR_BUILD_PYTHON: AUTO (default) builds it when Python's development files and nanobind are
# found, ON requires them, OFF skips it. The python is the one pip installs into: scikit-build-core
# passes Python_EXECUTABLE; otherwise the python3 first on PATH (the one scripts/setup-deps.sh gives
# nanobind, and the one `conveyor plot` runs).
set(CONVEYOR_BUILD_PYTHON AUTO CACHE STRING "Build the Python module conveyor._core: AUTO, ON or OFF")
set_property(CACHE CONVEYOR_BUILD_PYTHON PROPERTY STRINGS AUTO ON OFF)

set(CONVEYOR_HAVE_PYTHON FALSE)
# A sanitized module cannot be loaded by an ordinary python (the sanitizer runtime must come first),
# so AUTO leaves the asan/tsan presets alone (and their library without -fPIC).
if(CONVEYOR_BUILD_PYTHON STREQUAL "AUTO" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
  message(STATUS "Python module conveyor._core: not built in a sanitizer build")
elseif(NOT CONVEYOR_BUILD_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python_EXECUTABLE)
    find_program(CONVEYOR_PYTHON_EXECUTABLE NAMES python3)
    if(CONVEYOR_PYTHON_EXECUTABLE)
      set(Python_EXECUTABLE ${CONVEYOR_PYTHON_EXECUTABLE})
    endif()
  endif()
  find_package(Python 3.8 QUIET COMPONENTS Interpreter Development.Module)
  set(_python_missing "")
  if(NOT Python_Development.Module_FOUND)
    set(_python_missing "Python 3 development files (python3-dev) for ${Python_EXECUTABLE}")
  else()
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                    OUTPUT_VARIABLE _nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _nanobind_rc ERROR_QUIET)
    if(_nanobind_rc EQUAL 0 AND EXISTS "${_nanobind_dir}")
      find_package(nanobind CONFIG QUIET PATHS "${_nanobind_dir}" NO_DEFAULT_PATH)
    endif()
    if(NOT nanobind_FOUND)
      set(_python_missing "nanobind for ${Python_EXECUTABLE} (pip install nanobind)")
    endif()
  endif()
  if(_python_missing STREQUAL "")
    set(CONVEYOR_HAVE_PYTHON TRUE)
  elseif(CONVEYOR_BUILD_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "CONVEYOR_BUILD_PYTHON=ON but ${_python_missing} was not found")
  else()
    message(STATUS "Python module conveyor._core: not built (no ${_python_missing}; "
                   "scripts/setup-deps.sh installs it)")
  endif()
endif()

if(CONVEYOR_HAVE_PYTHON)
  # The static libraries end up inside a shared object.
  set_target_properties(conveyor conveyor_apps conveyor_manycore
    PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_subdirectory(${PROJECT_SOURCE_DIR}/python ${PROJECT_BINARY_DIR}/python)
  message(STATUS "Python module conveyor._core: ${PROJECT_BINARY_DIR}/python/conveyor "
                 "(Python ${Python_VERSION}, nanobind ${nanobind_VERSION})")
endif()
