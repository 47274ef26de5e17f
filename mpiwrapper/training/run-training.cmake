# Runs the training programs with the counting libhdtracempi.so preloaded,
# once per trace form, and writes STAMP whatever happens: with no counts
# (a failed run) the tracing objects are compiled as without them.
#   cmake -DPROGRAM=... [-DHDF5_PROGRAM=...] -DLIBRARY=... -DPROFILE_DIR=...
#         -DWORK_DIR=... -DSTAMP=... -P run-training.cmake
# PROFILE_DIR must be the folder the library was compiled to count into.
file(REMOVE_RECURSE ${PROFILE_DIR} ${WORK_DIR})
file(MAKE_DIRECTORY ${PROFILE_DIR} ${WORK_DIR})
set(outcome "counted")
# The builder's own HDTRACE_* settings (a filter, a layer switched off)
# would change what the training counts: the runs go without them.
execute_process(COMMAND ${CMAKE_COMMAND} -E environment OUTPUT_VARIABLE environment)
string(REGEX MATCHALL "(^|\n)HDTRACE_[A-Za-z0-9_]*=" settings "${environment}")
set(unset_settings "")
foreach(setting IN LISTS settings)
    string(REGEX REPLACE "^\n?(.*)=$" "\\1" name "${setting}")
    list(APPEND unset_settings "--unset=${name}")
endforeach()
set(programs ${PROGRAM})
if(HDF5_PROGRAM)
    list(APPEND programs ${HDF5_PROGRAM})
endif()
foreach(form xml compact)
    foreach(program IN LISTS programs)
        # Open MPI refuses root without these; a singleton run (no mpiexec)
        # needs no launcher.
        execute_process(
            COMMAND ${CMAKE_COMMAND} -E env ${unset_settings} LD_PRELOAD=${LIBRARY}
                    HDTRACE_DIR=${WORK_DIR}
                    HDTRACE_FORMAT=${form} OMPI_ALLOW_RUN_AS_ROOT=1
                    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${program} ${WORK_DIR}
            WORKING_DIRECTORY ${WORK_DIR}
            RESULT_VARIABLE result
            OUTPUT_VARIABLE output
            ERROR_VARIABLE output
            TIMEOUT 120)
        if(NOT result EQUAL 0)
            get_filename_component(name ${program} NAME)
            message(WARNING "The training run (${name}, ${form}) failed (${result}): the "
                            "tracing libraries are compiled without branch counts.\n${output}")
            file(REMOVE_RECURSE ${PROFILE_DIR})
            set(outcome "none: the training run failed")
            break()
        endif()
    endforeach()
    if(NOT outcome STREQUAL "counted")
        break()
    endif()
endforeach()
file(GLOB counts ${PROFILE_DIR}/*.gcda)
list(LENGTH counts count_files)
if(outcome STREQUAL "counted" AND count_files EQUAL 0)
    message(WARNING "The training run wrote no branch counts to ${PROFILE_DIR}")
    set(outcome "none: no counts written")
endif()
message(STATUS "Training run: ${count_files} files of branch counts in ${PROFILE_DIR}")
file(REMOVE_RECURSE ${WORK_DIR})
file(WRITE ${STAMP} "${outcome}\n")
