# fortran_conf.py: how scripts/generate-fortran-wrappers.py turns the C
# prototypes of functions.h into Fortran entry points (mpif.h, `use mpi`, and
# Open MPI's `use mpi_f08` through its ompi_*_f layer). What is logged stays
# in wrapper_conf.py: a Fortran entry runs the very hooks and attributes of
# the C wrapper, on C views of its Fortran arguments.
#
# The rules go by C parameter type, never by function, so that a function
# added to functions.h gets its Fortran entry without an edit here. A
# parameter type the generator has no rule for is an error that names the
# function and the parameter, unless the function is listed below.

# Functions without a Fortran entry point, and why. Every one of them is an
# explicit decision; the generator fails on a function it cannot bind that is
# not listed here. Names ending in _c are handled by a rule instead (below).
NO_FORTRAN = {
    'MPI_hdT_Test_nested':
        "HDTrace's own test function: it has no Fortran binding in any MPI library",
    'MPI_File_seek_shared':
        "the C wrapper replaces the library call by the seek and a synchronising "
        "seek by 0 (SharedSeek.cpp), while a Fortran entry leaves the call "
        "to the library's own Fortran binding; on Open MPI a Fortran program's "
        "File_seek_shared is therefore not traced (MPICH's binding calls the traced C "
        "MPI_File_seek_shared)",
}
# Listed ahead of time: a name here that functions.h does not (yet) declare is
# not an error, so that this list and functions.h can grow independently.

# MPI-4 large-count functions (MPI_Send_c, ...): in Fortran they exist only as
# generic mpi_f08 procedures, never as mpif.h externals.
NO_FORTRAN_SUFFIX = ('_c', 'The MPI-4 large-count (_c) functions exist in Fortran only as '
                     'mpi_f08 generics, never as mpif.h / use mpi externals')

# C parameters that Fortran does not have (MPI_Init's argc and argv; the
# variadic tail). Keys are the declaration without its name, spaces removed,
# followed by the name when the type alone is ambiguous.
C_ONLY = {'int*argc', 'char***argv', '...'}

# Fortran procedures without the trailing IERROR argument (the standard's
# MPI_PCONTROL(LEVEL)).
NO_IERROR = {'MPI_Pcontrol'}

# Output indices that are 0-based in C and 1-based in Fortran
# (MPI_Waitany / Testany `index`, Waitsome / Testsome `array_of_indices`):
# the generator converts them, MPI_UNDEFINED stays.
ONE_BASED = {'int*index', 'intarray_of_indices[]'}

# The length of an array parameter the hooks read (after conversion), by
# parameter name: the first of these names the function has.
ARRAY_LENGTHS = {
    'array_of_requests': ('count', 'incount'),
    'array_of_types': ('count',),
    'array_of_indices': ('*outcount',),
    'array_of_datatypes': ('max_datatypes',),
}

# `void *` parameters that are no choice buffer (an address-sized INTEGER or
# a C pointer in Fortran). MPICH writes its mpi_f08 procedures with a choice
# buffer in C (mpi_win_create_f08ts_, which calls the C MPI_Win_create) and
# the others in Fortran, calling PMPI_ (mpi_win_allocate_f08_,
# mpi_grequest_start_f08_): only these get an mpi_f08 entry point.
NOT_CHOICE_BUFFERS = {'extra_state', 'baseptr', 'attribute_val', 'attr_val'}
