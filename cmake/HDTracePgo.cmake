# The tracing libraries compiled with the branch counts of a training run.
#
# A traced call costs mostly its taken branches and its lines of code, which
# the MPI library and the kernel displace between two calls
# (docs/dev/performance.md, "The call path laid out by a training run").
# Given how often each branch went which way, GCC lays each function's
# common way out straight and moves the rare ways aside.
#
# The counts come from a second tree of this project, <build>/pgo-training,
# configured with HDTRACE_PGO_STAGE=generate: its tracing objects count
# their branches, and mpiwrapper/training runs once per trace form with its
# libhdtracempi.so preloaded, writing the counts to <build>/pgo-profile.
# This tree then compiles the same objects with them (hdtrace_profile_guided).
# A training run that fails leaves no counts: the objects are compiled as
# without this option, and the build says so.
option(HDTRACE_PGO "Compile the tracing libraries with the branch counts of a training run (GCC)"
       ON)
set(HDTRACE_PGO_STAGE "" CACHE STRING "generate: the training tree (set by the main tree)")
set(HDTRACE_PGO_PROFILE_DIR "${CMAKE_BINARY_DIR}/pgo-profile"
    CACHE PATH "Where the training run writes its branch counts")
mark_as_advanced(HDTRACE_PGO_STAGE HDTRACE_PGO_PROFILE_DIR)
set(HDTRACE_PGO_STAMP "${HDTRACE_PGO_PROFILE_DIR}.stamp")

set(HDTRACE_PGO_ACTIVE OFF)
if(HDTRACE_PGO_STAGE STREQUAL "generate")
    # Every object and library of the training tree links libgcov, which
    # writes the counts when the traced process exits.
    add_link_options(-fprofile-generate)
elseif(HDTRACE_PGO)
    set(pgo_not_here "")
    if(NOT HDTRACE_BUILD_MPI)
        set(pgo_not_here "the MPI wrapper is not built")
    elseif(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        set(pgo_not_here
            "the compilers are ${CMAKE_C_COMPILER_ID}/${CMAKE_CXX_COMPILER_ID}, not GCC")
    elseif(HDTRACE_SANITIZE OR HDTRACE_FUZZ)
        set(pgo_not_here "a sanitizer build")
    elseif(NOT CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
        set(pgo_not_here "the build type '${CMAKE_BUILD_TYPE}' is not optimised")
    elseif(CMAKE_CROSSCOMPILING)
        set(pgo_not_here "cross-compiling: the training cannot run here")
    endif()
    if(pgo_not_here)
        message(STATUS "HDTRACE_PGO: off, ${pgo_not_here}")
    else()
        set(HDTRACE_PGO_ACTIVE ON)
        message(STATUS "HDTRACE_PGO: the tracing libraries take the branch counts of a "
                       "training run (-DHDTRACE_PGO=OFF builds without)")
    endif()
endif()

# Kept for the tests, which check the counts where this tree takes them.
set(HDTRACE_PGO_ACTIVE ${HDTRACE_PGO_ACTIVE} CACHE INTERNAL "whether this tree takes the counts")

if(HDTRACE_PGO_ACTIVE)
    include(ExternalProject)
    set(pgo_arguments
        -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
        -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
        -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
        -DHDTRACE_PGO_STAGE=generate
        -DHDTRACE_PGO_PROFILE_DIR=${HDTRACE_PGO_PROFILE_DIR}
        -DHDTRACE_MPI_IMPL=${HDTRACE_MPI_IMPL}
        -DHDTRACE_BUILD_TESTS=OFF
        -DHDTRACE_BUILD_BENCH=OFF
        -DHDTRACE_BUILD_MERGER=OFF
        -DHDTRACE_BUILD_PYTHON=OFF)
    # What decides the objects' code is passed on, so that the counts fit
    # the functions compiled here.
    foreach(variable IN ITEMS Python3_EXECUTABLE MPI_C_COMPILER CMAKE_C_FLAGS CMAKE_CXX_FLAGS)
        if(DEFINED ${variable})
            list(APPEND pgo_arguments "-D${variable}=${${variable}}")
        endif()
    endforeach()
    string(TOUPPER "${CMAKE_BUILD_TYPE}" pgo_build_type)
    foreach(language C CXX)
        set(variable CMAKE_${language}_FLAGS_${pgo_build_type})
        list(APPEND pgo_arguments "-D${variable}=${${variable}}")
    endforeach()
    # Under make, the training tree shares the build's job slots.
    if(CMAKE_GENERATOR MATCHES "Makefiles")
        set(pgo_build_command $(MAKE) hdtrace_pgo_counts)
    else()
        set(pgo_build_command ${CMAKE_COMMAND} --build <BINARY_DIR> --target hdtrace_pgo_counts)
    endif()
    ExternalProject_Add(hdtrace_pgo_training
        SOURCE_DIR ${PROJECT_SOURCE_DIR}
        BINARY_DIR ${CMAKE_BINARY_DIR}/pgo-training
        CMAKE_ARGS ${pgo_arguments}
        BUILD_COMMAND ${pgo_build_command}
        INSTALL_COMMAND ""
        # The training tree finds for itself what changed since the last
        # build; its counts are taken again when its library changed.
        BUILD_ALWAYS ON
        BUILD_BYPRODUCTS ${HDTRACE_PGO_STAMP}
        EXCLUDE_FROM_ALL ON)
endif()

# Compiles target (an object library of the tracing libraries) to count its
# branches (training tree) or with the counts (this tree).
function(hdtrace_profile_guided target)
    if(HDTRACE_PGO_STAGE STREQUAL "generate")
        # Counts named by the object's path below the tree, the same in both.
        # (A generated source names itself by its folder and name with a
        # #line, for the same reason: see scripts/generate-wrappers.py.)
        target_compile_options(${target} PRIVATE -fprofile-generate=${HDTRACE_PGO_PROFILE_DIR}
            -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-update=atomic)
    elseif(HDTRACE_PGO_ACTIVE)
        # Functions the training never ran are optimised as without counts.
        # A function whose code changed since the training (a training tree
        # behind this one) loses its counts, and only its speed: said, not
        # fatal.
        target_compile_options(${target} PRIVATE -fprofile-use=${HDTRACE_PGO_PROFILE_DIR}
            -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-partial-training
            -Wno-missing-profile -Wno-error=coverage-mismatch)
        add_dependencies(${target} hdtrace_pgo_training)
        get_target_property(sources ${target} SOURCES)
        set_source_files_properties(${sources} PROPERTIES OBJECT_DEPENDS ${HDTRACE_PGO_STAMP})
        # The compiler cache does not see the counts among its inputs.
        set_target_properties(${target} PROPERTIES C_COMPILER_LAUNCHER "" CXX_COMPILER_LAUNCHER "")
    endif()
endfunction()
