# cmake --install: libconveyor (static by default, shared with -DBUILD_SHARED_LIBS=ON) and the
# simulator library with their exported targets (conveyor::conveyor, conveyor::sim), the public
# headers, the conveyor CLI, conveyor.pc, and the data files the CLI finds next to itself:
# <prefix>/share/conveyor/python (conveyor plot) and share/conveyor/sim (the mcore runtime to build
# programs with, and the built programs when the cross compiler was found).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(conveyor_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/conveyor)
set(conveyor_data_dir ${CMAKE_INSTALL_DATADIR}/conveyor)
get_target_property(conveyor_type conveyor TYPE)
if(conveyor_type STREQUAL "STATIC_LIBRARY")
  set(conveyor_static TRUE)
else()
  set(conveyor_static FALSE)
endif()

set_target_properties(conveyor_manycore PROPERTIES EXPORT_NAME sim)
install(TARGETS conveyor conveyor_manycore EXPORT conveyorTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The installed CLI finds a shared libconveyor next to itself, wherever the prefix is moved.
file(RELATIVE_PATH conveyor_bin_to_lib ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set_target_properties(conveyor_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${conveyor_bin_to_lib}")
install(TARGETS conveyor_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/conveyor DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/conveyor_plot DESTINATION ${conveyor_data_dir}/python
  PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/manycore/programs/mcore DESTINATION ${conveyor_data_dir}/sim)
if(TARGET conveyor_manycore_programs)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/manycore/programs/ DESTINATION ${conveyor_data_dir}/sim/programs
    FILES_MATCHING PATTERN "*.elf")
endif()

# The CMake package.
set(conveyor_backends cpu)
foreach(opt OPENCL CUDA)
  if(CONVEYOR_HAVE_${opt})
    string(TOLOWER ${opt} lower)
    list(APPEND conveyor_backends ${lower})
  endif()
endforeach()
list(JOIN conveyor_backends "," conveyor_backends)
# The pkg-config modules libconveyor links (NAME=module, as in cmake/Dependencies.cmake).
set(conveyor_pkg_targets "")
set(conveyor_pkg_prefixes "")
foreach(pair HWLOC=hwloc MEMKIND=memkind OPENBLAS=openblas DSA=libaccel-config)
  string(REPLACE "=" ";" parts ${pair})
  list(GET parts 0 opt)
  list(GET parts 1 module)
  if(CONVEYOR_HAVE_${opt})
    set(name ${opt})
    if(opt STREQUAL "DSA")
      set(name ACCEL_CONFIG)
    endif()
    list(APPEND conveyor_pkg_targets "${name}=${module}")
    list(APPEND conveyor_pkg_prefixes ${name})
  endif()
endforeach()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/conveyorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/conveyorConfig.cmake INSTALL_DESTINATION ${conveyor_cmake_dir})
# ABI policy (docs/api-c.md): releases that share major.minor are compatible; 0.2 asks for 0.2.x.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/conveyorConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(EXPORT conveyorTargets NAMESPACE conveyor:: DESTINATION ${conveyor_cmake_dir})
install(FILES ${PROJECT_BINARY_DIR}/conveyorConfig.cmake
  ${PROJECT_BINARY_DIR}/conveyorConfigVersion.cmake DESTINATION ${conveyor_cmake_dir})

# pkg-config: what a static link needs besides -lconveyor, from the libraries found at configure.
# The pkg-config modules (hwloc, memkind, ...) are listed as their own libraries rather than in
# Requires.private: `pkg-config --static` would pull in their private dependencies too (libudev,
# libdaxctl), which a system with only their shared libraries lacks and libconveyor never needs.
set(conveyor_pc_libs "")
function(conveyor_pc_add_library path)
  if(path MATCHES "^(.*)/lib([^/]+)\\.(a|so)(\\.[0-9.]*)?$")
    set(conveyor_pc_libs ${conveyor_pc_libs} "-L${CMAKE_MATCH_1}" "-l${CMAKE_MATCH_2}" PARENT_SCOPE)
  elseif(path)
    set(conveyor_pc_libs ${conveyor_pc_libs} "${path}" PARENT_SCOPE)
  endif()
endfunction()
foreach(name IN LISTS conveyor_pkg_prefixes)
  foreach(lib IN LISTS ${name}_LINK_LIBRARIES)
    conveyor_pc_add_library(${lib})
  endforeach()
endforeach()
if(CONVEYOR_HAVE_NUMA)
  conveyor_pc_add_library(${NUMA_LIBRARY})
endif()
if(CONVEYOR_HAVE_OPENCL)
  conveyor_pc_add_library(${OpenCL_LIBRARY})
endif()
if(CONVEYOR_HAVE_CUDA)
  foreach(lib cudart_static)  # cuBLAS and cuSOLVER are opened at run time
    conveyor_pc_add_library(${CUDA_${lib}_LIBRARY})
  endforeach()
  list(APPEND conveyor_pc_libs -ldl -lrt)
endif()
list(APPEND conveyor_pc_libs -lstdc++ -lm -pthread)
list(REMOVE_DUPLICATES conveyor_pc_libs)
list(JOIN conveyor_pc_libs " " conveyor_pc_libs_private)
configure_file(${CMAKE_CURRENT_LIST_DIR}/conveyor.pc.in ${PROJECT_BINARY_DIR}/conveyor.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/conveyor.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
