# CMake package config (find_package(HDTrace)) for every target that a
# component installed into the HDTraceTargets export set.
include(CMakePackageConfigHelpers)

set(HDTRACE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/HDTrace)

install(EXPORT HDTraceTargets
    NAMESPACE HDTrace::
    DESTINATION ${HDTRACE_CMAKE_INSTALL_DIR})

configure_package_config_file(
    ${CMAKE_CURRENT_LIST_DIR}/HDTraceConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/HDTraceConfig.cmake
    INSTALL_DESTINATION ${HDTRACE_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
    ${CMAKE_CURRENT_BINARY_DIR}/HDTraceConfigVersion.cmake
    COMPATIBILITY SameMajorVersion)
install(FILES
    ${CMAKE_CURRENT_BINARY_DIR}/HDTraceConfig.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/HDTraceConfigVersion.cmake
    DESTINATION ${HDTRACE_CMAKE_INSTALL_DIR})
