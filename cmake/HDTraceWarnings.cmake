# hdtrace_warnings: an interface target that every target of the project links
# privately, so that the warning set is defined once.
add_library(hdtrace_warnings INTERFACE)
target_compile_options(hdtrace_warnings INTERFACE
    -Wall -Wextra -Wshadow -Wformat=2 -Wundef
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast>
    $<$<BOOL:${HDTRACE_WERROR}>:-Werror>)
