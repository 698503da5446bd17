# The library's sources. Each room is one or more files with its own compile flags; dispatch.c is
# the door that chooses between them.
set(MF_LIB_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/api.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/convert_portable.c
)
