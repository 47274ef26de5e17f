"""The C library's file functions the POSIX and stdio layers define, from
which scripts/generate-library-wrappers.py writes their wrappers, the table of
the C library's own functions they call, and the attribute writing of each
call the dialect defines.

Each function is recorded as one call of format/dialect.toml (its `tag`: the
C function without its 64 suffix; open stands for the open family), through
one of the shapes of src/PosixShapes.hpp: what the wrapper knows of the call
and when it records it. The generator checks every entry against the
definition (the tag is a call of a C library layer, its shape gives exactly
that call's attributes, every such call has a function), writes the
attributes in the definition's order, and fails naming the function and the
key where they disagree.
"""

# How the generated code is named and what it includes: the records are
# PosixRecord_<tag>, the table of the C library's functions RealPosix
# (realPosix() in src/PosixReal.hpp looks it up once), and the marker
# symbol makes a static link take the wrappers with the runtime.
PREFIX = 'Posix'
HEADER_INCLUDES = ['<stdio.h>', '<sys/types.h>', '<sys/uio.h>']
SHAPES_HEADER = 'PosixShapes.hpp'
MARKER = 'hdtracempi_posix'
# PosixCall writes the file id before the shape's values.
FILE_ATTRIBUTE_FIRST = True
# The C++ type of each shape's values (src/PosixShapes.hpp).
VALUE_TYPES = {'open': 'OpenValues', 'plain': 'NoValues', 'access': 'AccessValues',
               'seek': 'SeekValues', 'truncate': 'TruncateValues',
               'stream-open': 'StreamOpenValues'}

# What each shape knows of a call, by the attribute of the dialect it fills:
# a C++ expression over the shape's `values` (src/PosixShapes.hpp). The
# file id comes first and the errno of a failed call last, for every shape:
# PosixCall writes them.
SHAPE_VALUES = {
    'open': {'flags': 'values.flags'},
    'plain': {},
    'access': {'offset': 'values.offset', 'asked': 'values.asked',
               'size': 'values.done < 0 ? 0 : values.done'},
    'seek': {'relative-offset': 'values.relative', 'whence': 'whenceText(values.whence).view()',
             'offset': 'values.position'},
    'truncate': {'size': 'values.length'},
    'stream-open': {'mode': 'values.mode'},
}

# Each function: its tag, shape, return type, parameters (type, name; '...'
# for open's variadic tail, which the wrapper reads into `mode` where the
# flags create a file), and the call of its shape (a function template of
# src/PosixShapes.hpp taking the call's record as its template argument;
# `real` is the C library's function of the same name).
FUNCTIONS = {
    # --- Opening and closing descriptors. open's mode is there only when
    # the flags create a file; the shapes fall back to the system call while
    # the C library's functions are still being looked up.
    'open': dict(tag='open', shape='open', returns='int',
                 params=[('const char *', 'path'), ('int', 'flags'), '...'],
                 body='openFile<Record>(openOf(false), AT_FDCWD, path, flags, mode)'),
    'open64': dict(tag='open', shape='open', returns='int',
                   params=[('const char *', 'path'), ('int', 'flags'), '...'],
                   body='openFile<Record>(openOf(true), AT_FDCWD, path, flags, mode)'),
    'openat': dict(tag='open', shape='open', returns='int',
                   params=[('int', 'dirFd'), ('const char *', 'path'), ('int', 'flags'), '...'],
                   body='openFile<Record>(openOf(false), dirFd, path, flags, mode)'),
    'openat64': dict(tag='open', shape='open', returns='int',
                     params=[('int', 'dirFd'), ('const char *', 'path'), ('int', 'flags'), '...'],
                     body='openFile<Record>(openOf(true), dirFd, path, flags, mode)'),
    'creat': dict(tag='open', shape='open', returns='int',
                  params=[('const char *', 'path'), ('mode_t', 'mode')],
                  body='openFile<Record>(openOf(false), AT_FDCWD, path, '
                       'O_CREAT | O_WRONLY | O_TRUNC, mode)'),
    'creat64': dict(tag='open', shape='open', returns='int',
                    params=[('const char *', 'path'), ('mode_t', 'mode')],
                    body='openFile<Record>(openOf(true), AT_FDCWD, path, '
                         'O_CREAT | O_WRONLY | O_TRUNC, mode)'),
    'close': dict(tag='close', shape='plain', returns='int', params=[('int', 'fd')],
                  body='closeDescriptor<Record>(real, fd)'),
    # --- Reads and writes: the hot ones.
    'read': dict(tag='read', shape='access', returns='ssize_t',
                 params=[('int', 'fd'), ('void *', 'data'), ('size_t', 'size')],
                 body='transferAtPosition<Record>(real, SYS_read, fd, data, size)'),
    'write': dict(tag='write', shape='access', returns='ssize_t',
                  params=[('int', 'fd'), ('const void *', 'data'), ('size_t', 'size')],
                  body='writeAtPosition<Record>(real, fd, data, size)'),
    'pread': dict(tag='pread', shape='access', returns='ssize_t',
                  params=[('int', 'fd'), ('void *', 'data'), ('size_t', 'size'),
                          ('off_t', 'offset')],
                  body='transferAt<Record>(real, SYS_pread64, fd, data, size, offset)'),
    'pread64': dict(tag='pread', shape='access', returns='ssize_t',
                    params=[('int', 'fd'), ('void *', 'data'), ('size_t', 'size'),
                            ('off_t', 'offset')],
                    body='transferAt<Record>(real, SYS_pread64, fd, data, size, offset)'),
    'pwrite': dict(tag='pwrite', shape='access', returns='ssize_t',
                   params=[('int', 'fd'), ('const void *', 'data'), ('size_t', 'size'),
                           ('off_t', 'offset')],
                   body='transferAt<Record>(real, SYS_pwrite64, fd, data, size, offset)'),
    'pwrite64': dict(tag='pwrite', shape='access', returns='ssize_t',
                     params=[('int', 'fd'), ('const void *', 'data'), ('size_t', 'size'),
                             ('off_t', 'offset')],
                     body='transferAt<Record>(real, SYS_pwrite64, fd, data, size, offset)'),
    'readv': dict(tag='readv', shape='access', returns='ssize_t',
                  params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count')],
                  body='vectorAtPosition<Record>(real, SYS_readv, fd, vector, count)'),
    'writev': dict(tag='writev', shape='access', returns='ssize_t',
                   params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count')],
                   body='vectorAtPosition<Record>(real, SYS_writev, fd, vector, count)'),
    'preadv': dict(tag='preadv', shape='access', returns='ssize_t',
                   params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count'),
                           ('off_t', 'offset')],
                   body='vectorAt<Record>(real, SYS_preadv, fd, vector, count, offset)'),
    'preadv64': dict(tag='preadv', shape='access', returns='ssize_t',
                     params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count'),
                             ('off_t', 'offset')],
                     body='vectorAt<Record>(real, SYS_preadv, fd, vector, count, offset)'),
    'pwritev': dict(tag='pwritev', shape='access', returns='ssize_t',
                    params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count'),
                            ('off_t', 'offset')],
                    body='vectorAt<Record>(real, SYS_pwritev, fd, vector, count, offset)'),
    'pwritev64': dict(tag='pwritev', shape='access', returns='ssize_t',
                      params=[('int', 'fd'), ('const struct iovec *', 'vector'), ('int', 'count'),
                              ('off_t', 'offset')],
                      body='vectorAt<Record>(real, SYS_pwritev, fd, vector, count, offset)'),
    # --- Positions, sync and size.
    'lseek': dict(tag='lseek', shape='seek', returns='off_t',
                  params=[('int', 'fd'), ('off_t', 'offset'), ('int', 'whence')],
                  body='seekDescriptor<Record>(real, fd, offset, whence)'),
    'lseek64': dict(tag='lseek', shape='seek', returns='off_t',
                    params=[('int', 'fd'), ('off_t', 'offset'), ('int', 'whence')],
                    body='seekDescriptor<Record>(real, fd, offset, whence)'),
    'fsync': dict(tag='fsync', shape='plain', returns='int', params=[('int', 'fd')],
                  body='syncDescriptor<Record>(real, SYS_fsync, fd)'),
    'fdatasync': dict(tag='fdatasync', shape='plain', returns='int', params=[('int', 'fd')],
                      body='syncDescriptor<Record>(real, SYS_fdatasync, fd)'),
    'ftruncate': dict(tag='ftruncate', shape='truncate', returns='int',
                      params=[('int', 'fd'), ('off_t', 'length')],
                      body='truncateDescriptor<Record>(real, fd, length)'),
    'ftruncate64': dict(tag='ftruncate', shape='truncate', returns='int',
                        params=[('int', 'fd'), ('off_t', 'length')],
                        body='truncateDescriptor<Record>(real, fd, length)'),
    # --- Streams. While the C library's functions are being looked up,
    # these fail with ENOSYS (dlsym does not use them).
    'fopen': dict(tag='fopen', shape='stream-open', returns='FILE *',
                  params=[('const char *', 'path'), ('const char *', 'mode')],
                  body='openStream<Record>(real, path, mode)'),
    'fopen64': dict(tag='fopen', shape='stream-open', returns='FILE *',
                    params=[('const char *', 'path'), ('const char *', 'mode')],
                    body='openStream<Record>(real, path, mode)'),
    'fdopen': dict(tag='fdopen', shape='stream-open', returns='FILE *',
                   params=[('int', 'fd'), ('const char *', 'mode')],
                   body='streamOfDescriptor<Record>(real, fd, mode)'),
    'fclose': dict(tag='fclose', shape='plain', returns='int', params=[('FILE *', 'stream')],
                   body='closeStream<Record>(real, stream)'),
    'fread': dict(tag='fread', shape='access', returns='size_t',
                  params=[('void *', 'data'), ('size_t', 'size'), ('size_t', 'count'),
                          ('FILE *', 'stream')],
                  body='transferStream<Record>(real, data, size, count, stream)'),
    'fwrite': dict(tag='fwrite', shape='access', returns='size_t',
                   params=[('const void *', 'data'), ('size_t', 'size'), ('size_t', 'count'),
                           ('FILE *', 'stream')],
                   body='transferStream<Record>(real, data, size, count, stream)'),
    'fseek': dict(tag='fseek', shape='seek', returns='int',
                  params=[('FILE *', 'stream'), ('long', 'offset'), ('int', 'whence')],
                  body='seekStream<Record>(real, stream, offset, whence)'),
    'fseeko': dict(tag='fseek', shape='seek', returns='int',
                   params=[('FILE *', 'stream'), ('off_t', 'offset'), ('int', 'whence')],
                   body='seekStream<Record>(real, stream, offset, whence)'),
    'fseeko64': dict(tag='fseek', shape='seek', returns='int',
                     params=[('FILE *', 'stream'), ('off_t', 'offset'), ('int', 'whence')],
                     body='seekStream<Record>(real, stream, offset, whence)'),
    'fflush': dict(tag='fflush', shape='plain', returns='int', params=[('FILE *', 'stream')],
                   body='flushStream<Record>(real, stream)'),
}
