#include "InfoRecordPool.hpp"

#include <functional>

namespace hdtrace::merger {

HashedText::HashedText(std::string_view lineText)
    : text(lineText), hash(std::hash<std::string_view>()(lineText)) {}

}  // namespace hdtrace::merger
