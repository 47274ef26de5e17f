#include "CompactXmlText.hpp"

#include <algorithm>
#include <cstring>

namespace hdtrace::reader {

size_t CompactXmlText::read(char *out, size_t room, bool *last) {
    while (text_.size() - done_ < room && !ended_) {
        // Keep what was not read yet, then render the next piece after it.
        text_.erase(0, done_);
        done_ = 0;
        goal_ = std::max(room, kLeastPieceBytes);
        ended_ = !source_->next(pieces_);
        if (!renderer_.drain())
            throw ReadError(source_->path(), 0, 0, "cannot render the XML text");
    }
    const size_t count = std::min(room, text_.size() - done_);
    std::memcpy(out, text_.data() + done_, count);
    done_ += count;
    *last = ended_ && done_ == text_.size();
    return count;
}

}  // namespace hdtrace::reader
