// The traces of the layers traced apart (HDF5: <base>.hdf5.trc beside the
// main trace <base>.trc) and how a thread's calls nest across them: a
// top-level call of the main trace lies beneath the layer call of the same
// thread whose time holds it, so that an H5Dwrite holds the
// File_write_at_all it made, which holds its pwrite calls
// (docs/format/layers.md).
#pragma once

#include <string>
#include <vector>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

namespace hdtrace::reader {

struct LayerTracePath {
    std::string layer;  // the layer's key in the dialect ("hdf5")
    std::string path;
};

// The layer traces beside the main trace at mainPath (.trc or .ctrc) that
// exist, outermost layer first; of a layer's two forms, XML where both are.
std::vector<LayerTracePath> layerTracePaths(const std::string &mainPath);

// One tree, in pre-order, of the rows of outer (a layer's calls) and inner
// (the calls beneath that layer): each top-level inner call whose time lies
// within a top-level outer call becomes that call's last child, one level
// deeper with all it holds; the other inner calls stay at the top level,
// where their start puts them (after an outer call that starts with them).
// The opening calls are inner's: an outer layer's names are of its own
// objects (an HDF5 dataset), not of files.
CallTree nestCallTreeBeneath(const CallTree &outer, const CallTree &inner);

// readCallTree of the main trace at mainPath with the calls of the layer
// traces beside it above its calls; damage names every trace's, outermost
// first.
CallTreeResult readCallTreeWithLayers(const std::string &mainPath,
                                      const TraceOptions &options = {});

}  // namespace hdtrace::reader
