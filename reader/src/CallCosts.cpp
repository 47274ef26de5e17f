#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/CallCosts.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>
#include <hdtrace/reader/TraceReader.hpp>

#include "WriterLayout.hpp"

namespace hdtrace::reader {
namespace {

int64_t fileSize(const std::string &path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0)
        throw ReadError(path, 0, 0, std::string("cannot read: ") + std::strerror(errno));
    return static_cast<int64_t>(status.st_size);
}

// The calls of one record (a top-level call with its nested block): the
// row of each line's call and the line's bytes.
struct Record {
    std::vector<std::pair<size_t, int64_t>> parts;  // (row, XML bytes)
    int64_t xmlBytes = 0;
    // The record the writer opens a compact trace with (its Program
    // operation, no call): counted with the bytes outside calls.
    bool opening = false;
};

// Reads the XML form line by line (the writer's layout: one element a
// line) and gives each line's bytes to its call.
class LineAccountant {
  public:
    LineAccountant(std::string path, CallCosts &costs) : path_(std::move(path)), costs_(costs) {}

    // line: one line with its '\n' (the last may lack it).
    void take(std::string_view line) {
        ++lineNumber_;
        const int64_t bytes = static_cast<int64_t>(line.size());
        layout::Line element;
        if (!layout::classify(line, &element)) fail("not one element a line (the writer's layout)");
        using Kind = layout::Line::Kind;
        switch (element.kind) {
            case Kind::Blank:
            case Kind::Outside:
                costs_.fixedXml += bytes;
                return;
            case Kind::NestedOpen:  // both tags count to the call that follows the block
                if (!open_.empty() && open_.back().isCall) fail("<Nested> inside a call's element");
                pending_.resize(static_cast<size_t>(nesting_) + 2, 0);
                pending_[static_cast<size_t>(nesting_)] += bytes;
                open_.push_back(Open{0, false});
                ++nesting_;
                return;
            case Kind::NestedClose:
                if (open_.empty() || open_.back().isCall) fail("</Nested> without <Nested>");
                open_.pop_back();
                --nesting_;
                pending_[static_cast<size_t>(nesting_)] += bytes;
                return;
            case Kind::EndTag: {
                if (open_.empty() || !open_.back().isCall) fail("an end tag without its start");
                const size_t row = open_.back().row;
                open_.pop_back();
                give(row, bytes);
                if (open_.empty()) endRecord();
                return;
            }
            case Kind::StartTag:
                break;
        }
        if (!open_.empty() && open_.back().isCall) {  // a child: <For>, <Data>, <Info>
            give(open_.back().row, bytes);
            if (!element.leaf) fail("a child element with children");
            return;
        }
        const size_t row = rowOf(element.name, nesting_ > 0);
        CallCostRow &call = costs_.rows[row];
        ++call.visits;
        const auto start = parseDecimalSeconds(layout::attributeIn(element.text, "time"));
        const auto end = parseDecimalSeconds(layout::attributeIn(element.text, "end"));
        if (start && end && end->nanoseconds >= start->nanoseconds)
            call.timeNs += end->nanoseconds - start->nanoseconds;
        if (start) {
            if (!anyTime_ || start->nanoseconds < firstNs_) firstNs_ = start->nanoseconds;
            const int64_t last = end ? end->nanoseconds : start->nanoseconds;
            if (!anyTime_ || last > lastNs_) lastNs_ = last;
            anyTime_ = true;
        }
        pending_.resize(static_cast<size_t>(nesting_) + 2, 0);
        give(row, bytes + pending_[static_cast<size_t>(nesting_)]);
        pending_[static_cast<size_t>(nesting_)] = 0;
        if (!element.leaf)
            open_.push_back(Open{row, true});
        else if (open_.empty())
            endRecord();
    }

    void finish() {
        if (!open_.empty() || (!pending_.empty() && pending_[0] != 0))
            fail("the trace ends inside a call or a <Nested> block");
        costs_.spanNs = anyTime_ ? lastNs_ - firstNs_ : 0;
    }

    // The records completed since the last call, in order.
    std::vector<Record> &records() { return records_; }

  private:
    struct Open {
        size_t row;
        bool isCall;  // else a <Nested> block
    };
    [[noreturn]] void fail(const std::string &problem) const {
        throw ReadError(path_, lineNumber_, 0, problem);
    }
    void give(size_t row, int64_t bytes) {
        costs_.rows[row].bytesXml += bytes;
        record_.parts.emplace_back(row, bytes);
        record_.xmlBytes += bytes;
    }
    void endRecord() {
        records_.push_back(std::move(record_));
        record_ = Record{};
    }
    size_t rowOf(std::string_view tag, bool nested) {
        std::string key(tag);
        key += nested ? '1' : '0';
        auto [entry, added] = rows_.try_emplace(std::move(key), costs_.rows.size());
        if (added) costs_.rows.push_back(CallCostRow{std::string(tag), nested});
        return entry->second;
    }

    std::string path_;
    CallCosts &costs_;
    int lineNumber_ = 0;
    std::vector<Open> open_;
    int nesting_ = 0;
    std::vector<int64_t> pending_;  // <Nested> tag bytes by level, for the next call there
    Record record_;
    std::vector<Record> records_;
    std::unordered_map<std::string, size_t> rows_;
    bool anyTime_ = false;
    int64_t firstNs_ = 0, lastNs_ = 0;
};

// Shares each frame's bytes in the file among its records, by each
// record's bytes before compression, and a record's among its calls by
// their XML bytes.
class FrameSharer {
  public:
    // recordBytes: each record's bytes before compression, in file order,
    // the writer's opening record (its Program, no call) first.
    FrameSharer(const std::string &compactPath, std::vector<uint32_t> recordBytes, CallCosts &costs)
        : file_(compactPath), costs_(costs), recordBytes_(std::move(recordBytes)) {
        int64_t inFrames = 0;
        for (const FrameInfo &frame : file_.frames())
            inFrames += frame.storedBytes;
        costs_.fileBytesCompact = fileSize(compactPath);
        costs_.fixedCompact = costs_.fileBytesCompact - inFrames;
        if (recordBytes_.size() != file_.records())
            throw ReadError(file_.path(), 0, 0,
                            "holds " + std::to_string(file_.records()) +
                                " records, but its XML form encodes to " +
                                std::to_string(recordBytes_.size()));
        Record opening;
        opening.opening = true;
        waiting_.push_back(std::move(opening));
    }

    void take(std::vector<Record> &records) {
        for (Record &record : records) {
            ++taken_;
            waiting_.push_back(std::move(record));
            while (frame_ < file_.frames().size() &&
                   waiting_.size() >= file_.frames()[frame_].records)
                shareFrame();
        }
        records.clear();
    }

    void finish() {
        while (frame_ < file_.frames().size() && waiting_.size() >= file_.frames()[frame_].records)
            shareFrame();
        if (!waiting_.empty() || frame_ != file_.frames().size())
            throw ReadError(file_.path(), 0, 0,
                            "its frames hold " + std::to_string(file_.records()) +
                                " records, but its XML form has " + std::to_string(taken_) +
                                " calls at the top level (and the writer's opening record)");
        // Whole bytes adding up to the frames' bytes: each row's share rounded
        // down, and what is left one byte at a time to the largest remainders.
        costs_.fixedCompact += static_cast<int64_t>(openingShare_ + 0.5);
        int64_t left = costs_.fileBytesCompact - costs_.fixedCompact;
        shares_.resize(costs_.rows.size(), 0.0);
        std::vector<std::pair<double, size_t>> remainders;
        for (size_t row = 0; row < shares_.size(); ++row) {
            const auto whole = static_cast<int64_t>(shares_[row]);
            costs_.rows[row].bytesCompact = whole;
            left -= whole;
            remainders.emplace_back(shares_[row] - static_cast<double>(whole), row);
        }
        std::sort(remainders.begin(), remainders.end(), std::greater<>());
        for (size_t index = 0; left > 0 && !remainders.empty(); --left, ++index)
            ++costs_.rows[remainders[index % remainders.size()].second].bytesCompact;
        if (left < 0) costs_.fixedCompact += left;  // the opening's rounding, at most a byte
    }

  private:
    void shareFrame() {
        const FrameInfo &frame = file_.frames()[frame_++];
        const size_t count = frame.records;
        double weightSum = 0;
        for (size_t index = 0; index < count; ++index)
            weightSum += recordBytes_[shared_ + index];
        const double frameBytes = frame.storedBytes;
        shares_.resize(costs_.rows.size(), 0.0);
        for (size_t index = 0; index < count; ++index) {
            const Record &record = waiting_[index];
            const double recordShare =
                weightSum > 0 ? frameBytes * recordBytes_[shared_ + index] / weightSum : 0.0;
            if (record.opening) {
                openingShare_ += recordShare;
                continue;
            }
            for (const auto &[row, bytes] : record.parts)
                if (record.xmlBytes > 0)
                    shares_[row] += recordShare * static_cast<double>(bytes) /
                                    static_cast<double>(record.xmlBytes);
        }
        waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(count));
        shared_ += count;
    }

    FrameFile file_;
    CallCosts &costs_;
    std::vector<uint32_t> recordBytes_;
    size_t frame_ = 0;
    size_t shared_ = 0;  // records shared out so far
    uint64_t taken_ = 0;
    std::vector<Record> waiting_;
    std::vector<double> shares_;  // by row
    double openingShare_ = 0;
};

}  // namespace

CallCosts callCostsOf(const std::string &path) {
    CallCosts costs;
    LineAccountant lines(path, costs);
    // The XML form is read as text; the compact form is encoded from it as
    // hdtrace convert does, which gives each record's bytes before
    // compression. A compact trace's own frames are then shared out by them.
    std::string xmlPath = path;
    std::string compactPath = path;
    layout::ScratchFile xmlForm(".trc"), compactForm(".ctrc");
    std::vector<uint32_t> recordBytes;
    const ConversionTarget scratch = ConversionTarget::Scratch;
    if (traceFormOf(path) == TraceForm::Compact) {
        convertTrace(path, xmlForm.path(), TraceForm::Xml, 0, nullptr, scratch);
        xmlPath = xmlForm.path();
        convertTrace(xmlPath, compactForm.path(), TraceForm::Compact, 0, &recordBytes, scratch);
    } else {
        convertTrace(path, compactForm.path(), TraceForm::Compact, 0, &recordBytes, scratch);
        compactPath = compactForm.path();
    }
    FrameSharer frames(compactPath, std::move(recordBytes), costs);
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(xmlPath.c_str(), "rb"),
                                                          std::fclose);
    if (!file) throw ReadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    const bool read = layout::forEachLine(file.get(), [&](std::string_view line) {
        costs.fileBytesXml += static_cast<int64_t>(line.size());
        lines.take(line);
        frames.take(lines.records());
    });
    if (!read) throw ReadError(path, 0, 0, "cannot read to its end");
    lines.finish();
    frames.finish();
    return costs;
}

}  // namespace hdtrace::reader
