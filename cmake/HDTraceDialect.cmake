# Code generated from the one definition of the trace dialect
# (format/dialect.toml): hdtrace_generate_dialect(WHAT OUTPUT) adds the
# custom command that writes OUTPUT (scripts/generate-dialect.py WHAT).
# The definition is read with tomllib: Python 3.11 or later.
find_package(Python3 3.11 REQUIRED COMPONENTS Interpreter)

set(HDTRACE_DIALECT_DEFINITION ${PROJECT_SOURCE_DIR}/format/dialect.toml)
set(HDTRACE_DIALECT_INPUTS
    ${HDTRACE_DIALECT_DEFINITION}
    ${PROJECT_SOURCE_DIR}/format/dialect.py
    ${PROJECT_SOURCE_DIR}/scripts/generate-dialect.py)

function(hdtrace_generate_dialect what output)
    get_filename_component(name ${output} NAME)
    add_custom_command(
        OUTPUT ${output}
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/generate-dialect.py
                ${what} ${output} ${HDTRACE_DIALECT_DEFINITION}
        DEPENDS ${HDTRACE_DIALECT_INPUTS}
        COMMENT "Generating ${name} from the dialect definition"
        VERBATIM)
endfunction()
