# SPDX-License-Identifier: MIT
# The overflow lab's sources: analysis (analyze.c) and the elementwise operations (elementwise.c), built
# as their own library, minifloat_lab (CMakeLists.txt), on top of the core library. The elementwise
# operations are vectorised with SLEEF where it is installed: src/vmath.h is the only file that includes
# <sleef.h>, and the lab the only target that links it (the core needs neither SLEEF nor the lab).
file(GLOB MF_LAB_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
find_path(MF_SLEEF_INCLUDE sleef.h)
find_library(MF_SLEEF_LIB sleef)
set(MF_LAB_SLEEF OFF)
if(MF_SLEEF_INCLUDE AND MF_SLEEF_LIB)
  set(MF_LAB_SLEEF ON)
endif()

# Add the lab's sources, definitions and include directories to target.
function(mf_lab_sources target)
  target_sources(${target} PRIVATE ${MF_LAB_SOURCES})
  target_compile_definitions(${target} PRIVATE MF_BUILDING_LIBRARY)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  if(MF_LAB_SLEEF)
    target_compile_definitions(${target} PRIVATE MF_HAVE_SLEEF=1)
    target_include_directories(${target} PRIVATE ${MF_SLEEF_INCLUDE})
  endif()
endfunction()
