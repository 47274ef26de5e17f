#include <hdtrace/TracerIo.hpp>

namespace hdtrace {

__thread int tTracerIoDepth = 0;

}  // namespace hdtrace
