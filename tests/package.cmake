# Package tier: install, then consume through find_package and pkg-config.
add_test(NAME package_consumer
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/package/check_package.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/package_scratch)
set_tests_properties(package_consumer PROPERTIES LABELS package TIMEOUT 300)
