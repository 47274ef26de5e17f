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

# The Debian package (scripts/package, or `cpack -G DEB` in a build tree):
# hdtrace_<version>_<arch>.deb with everything `cmake --install` puts under
# the prefix, installed into /usr. The shared libraries' Depends come from
# dpkg-shlibdeps; the rest is what the installed files need at use time.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hdtrace)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "HDTrace maintainers <hdtrace@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The synopsis is the summary above; this is the long description under it.
set(CPACK_PACKAGE_DESCRIPTION "libhdtracempi (static and preloadable) records the MPI and MPI-IO calls
of a parallel program into one XML trace per process; project-merger unites
a run into a project description for the PIOsim simulator and viewer; the
hdtrace command and Python package trace a program in one step (hdtrace run)
and read, summarise, show and export traces.")

execute_process(COMMAND dpkg --print-architecture
    OUTPUT_VARIABLE hdtrace_deb_architecture OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE hdtrace_dpkg_status ERROR_QUIET)
if(hdtrace_dpkg_status EQUAL 0 AND hdtrace_deb_architecture)
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${hdtrace_deb_architecture})
    set(CPACK_DEBIAN_FILE_NAME "hdtrace_${PROJECT_VERSION}_${hdtrace_deb_architecture}.deb")
endif()

set(hdtrace_deb_depends)
if(HDTRACE_BUILD_MPI)
    # mpi.h for hdtracempi.h, mpicc to link the archive, and the launcher
    # for hdtrace run: those of the MPI library the wrapper was built for.
    if(MPI_C_LIBRARIES MATCHES "mpich")
        list(APPEND hdtrace_deb_depends "libmpich-dev" "mpich")
    else()
        list(APPEND hdtrace_deb_depends "libopenmpi-dev" "openmpi-bin")
    endif()
    # The archive is linked with -lstdc++ (pkg-config --libs hdtrace-mpi).
    string(REGEX MATCH "^[0-9]+" hdtrace_gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
    list(APPEND hdtrace_deb_depends "libstdc++-${hdtrace_gcc_major}-dev | libstdc++-dev")
endif()
if(HDTRACE_BUILD_PYTHON)
    # _core is built for this Python version only.
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    math(EXPR hdtrace_next_python_minor "${Python3_VERSION_MINOR} + 1")
    list(APPEND hdtrace_deb_depends
        "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR})"
        "python3 (<< ${Python3_VERSION_MAJOR}.${hdtrace_next_python_minor})"
        "python3-numpy")
    set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib, pkgconf | pkg-config")
endif()
if(HDTRACE_BUILD_MERGER)
    # HDTrace::hdtrace_merger links libxml2 by name.
    set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libxml2-dev, cmake")
endif()
list(JOIN hdtrace_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
include(CPack)
