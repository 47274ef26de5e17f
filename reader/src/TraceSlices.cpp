#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <utility>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

#include "ColumnReaders.hpp"
#include "SliceLayout.hpp"

namespace hdtrace::reader {

SliceRead readEventColumnsSlice(const std::string &path, const TraceOptions &options,
                                const LocalToWorldTable *localToWorld, uint64_t begin,
                                uint64_t end) {
    SliceRead slice;
    if (traceFormOf(path) == TraceForm::Compact) {
        // The frames whose header starts in the range: the frames of any
        // split tile the trace.
        struct stat info {};
        const uint64_t size =
            ::stat(path.c_str(), &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
        slice.from = std::min(begin, size);
        slice.to = std::min(end, size);
        slice.result =
            readCompactEventColumns(path, options, localToWorld, CompactByteRange{begin, end});
        return slice;
    }
    SliceLayout layout(path, begin, end);
    if (!layout.inWritersLayout()) {
        // Not the writer's layout (or not readable: the whole read words why).
        slice.whole = true;
        if (layout.readsWhole()) {
            slice.result = readEventColumns(path, options, localToWorld);
            slice.to = layout.fileSize();
        }
        return slice;
    }
    slice.from = layout.from();
    slice.to = layout.to();
    if (layout.empty()) return slice;

    std::string reason;
    if (auto read =
            readEventColumnsByDialectSlice(path, options, localToWorld, layout.timeAdjustment(),
                                           slice.from, slice.to, layout.endsTheFile(), &reason)) {
        slice.result = std::move(*read);
        return slice;
    }

    // libxml2 over the slice's document: the same result or the error a
    // whole read gives at that place, its line moved to the file's.
    // The slice does not end where the root holds only complete calls: the
    // trace is not in the writer's layout after all (or damaged across the
    // slice's end); or libxml2 saw an error only at the slice's end, where
    // the whole file goes on. The whole read gives its error; without one,
    // say why.
    const auto notInLayout = [&]() -> SliceRead {
        TraceOptions strict = options;
        strict.partial = false;
        readEventColumnsWithLibxml2(path, strict, localToWorld);
        throw layout.notInLayout();
    };
    try {
        slice.result =
            readEventColumnsWithLibxml2(path, options, localToWorld, layout.documentPieces(),
                                        [&layout](int line) { return layout.fileLine(line); });
    } catch (const InputEndError &) {
        return notInLayout();
    } catch (const ReadError &) {
        if (layout.errorInAddedClosingTag()) return notInLayout();
        throw;
    }
    if (layout.errorInAddedClosingTag()) return notInLayout();
    slice.result.fallback = std::move(reason);
    return slice;
}

}  // namespace hdtrace::reader
