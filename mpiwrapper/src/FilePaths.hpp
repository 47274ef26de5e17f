// FilePaths: the one spelling of a file's path by which the file registry
// knows a file, whether MPI_File_open or the C library's open named it, and
// the paths whose files the POSIX layer leaves out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hdtracempi {

// An absolute path without "." and ".." components or repeated slashes,
// taken lexically (symbolic links are not followed: that would be I/O on
// every open). A ROMIO file-system prefix ("ufs:", "nfs:", "lustre:", ...)
// is dropped; a relative name is taken from the working directory.
std::string normalisedPath(std::string_view name);

// The paths whose files are not traced: directories (a path is inside when
// it equals one or continues it after a '/') and name prefixes (the MPI
// libraries' session and shared-memory files, e.g. /tmp/ompi.HOST.UID).
class ExcludedPaths {
  public:
    // The paths never traced: the kernel's, the devices', the MPI libraries'
    // own. The program's choices are the filter's file rules.
    ExcludedPaths();
    bool excludes(std::string_view normalised) const;

  private:
    std::vector<std::string> directories_;
    std::vector<std::string> namePrefixes_;
};

}  // namespace hdtracempi
