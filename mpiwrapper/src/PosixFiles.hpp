// PosixFiles: which file descriptors the POSIX layer traces, and as which
// file of the registry. A table by descriptor number holds each one's file
// record, kUntracedFile (a socket, a pipe, a left-out path, the tracer's own
// files) or nothing yet; a descriptor the program did not open while traced
// (inherited, opened before MPI_Init, by socket() or dup()) is looked up
// once through /proc/self/fd and traced when that gives a path that is not
// left out.
#pragma once

#include <atomic>

#include "Config.hpp"
#include "FileRegistry.hpp"

namespace hdtracempi {

// Set from the end of MPI_Init to MPI_Finalize when the rank writes any C
// library call (HDTRACE_POSIX, the filter); never in a fork child.
extern std::atomic<bool> gPosixTracing;

// Starts the layer when this rank writes any C library call (CallSelection).
void startPosixLayer();
void stopPosixLayer();

extern const FileRecord kUntracedFile;

// The record of an open descriptor, or &kUntracedFile.
const FileRecord *fileOfDescriptor(int fd);
// After the C library opened path (relative to the directory of dirFd
// unless that is AT_FDCWD) as fd: fd's record from now on, or &kUntracedFile.
const FileRecord *descriptorOpened(int fd, const char *path, int dirFd);
// A file id that names no file (-1): a failed open of a path never opened,
// as a failed MPI_File_open is written.
extern const FileRecord kUnopenedFile;

// A path that could not be opened: its record when it was opened before,
// else &kUnopenedFile; &kUntracedFile when it is left out or relative to
// another directory.
const FileRecord *fileOfFailedOpen(const char *path, int dirFd);
// Before fd is closed: forgotten, whatever it was.
void descriptorClosed(int fd);
// fd is the tracer's own (opened while hdtrace::insideTracerIo()).
void descriptorUntraced(int fd);

}  // namespace hdtracempi
