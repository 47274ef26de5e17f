# pkg-config files that work wherever the installed tree is moved: their
# prefix is derived from ${pcfiledir}, the directory pkg-config found the
# .pc file in, instead of the CMAKE_INSTALL_PREFIX of configure time.
#
#   hdtrace_install_pkgconfig(<template.pc.in> <name>)
#
# configures <template> with @ONLY (it writes `prefix=@HDTRACE_PC_PREFIX@`
# and paths below ${prefix}) into <name>.pc and installs it into
# ${CMAKE_INSTALL_LIBDIR}/pkgconfig. Every component's .pc file goes through
# this one function.

set(HDTRACE_PKGCONFIG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    # An absolute libdir is not below the prefix: nothing to be relative to.
    set(HDTRACE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
    # From <prefix>/<libdir>/pkgconfig back up to <prefix>, e.g. "../.." for
    # lib, "../../.." for Debian's lib/x86_64-linux-gnu.
    file(RELATIVE_PATH hdtrace_pc_up "/prefix/${HDTRACE_PKGCONFIG_INSTALL_DIR}" "/prefix")
    string(REGEX REPLACE "/$" "" hdtrace_pc_up "${hdtrace_pc_up}")
    set(HDTRACE_PC_PREFIX "\${pcfiledir}/${hdtrace_pc_up}")
endif()

function(hdtrace_install_pkgconfig template name)
    configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc @ONLY)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc
        DESTINATION ${HDTRACE_PKGCONFIG_INSTALL_DIR})
endfunction()
