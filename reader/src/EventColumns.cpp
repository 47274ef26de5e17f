#include <sys/stat.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/SaxFileParser.hpp>

namespace hdtrace::reader {
namespace {

// The integer in text, or fallback when it is none (numbers too large for
// 64 bits are refused before, by numbersFit).
int64_t integerOr(std::string_view text, int64_t fallback) {
    auto value = parseInteger(text);
    return value ? *value : fallback;
}

// Attributes that go into the table's 32-bit columns (peer, tag, cid, fid).
bool isThirtyTwoBitColumn(std::string_view name) {
    for (std::string_view column : {"toRank", "toTag", "tag", "source", "root", "rootRank",
                                    "fromRank", "fromTag", "cid", "fid"})
        if (name == column) return true;
    return false;
}

// The values of one top-level call while its element is open.
struct OpenCall {
    int32_t nameCode = 0;
    int64_t startNs = 0, endNs = 0;
    bool hasStart = false, hasEnd = false;
    int64_t size = -1, sizeFallback = -1, offset = -1, rid = -1, cid = -1, fid = -1;
    int64_t peer = kNoValue32, tag = kNoValue32, recvPeer = kNoValue32, recvTag = kNoValue32;
    int peerPriority = 99, tagPriority = 99;
    bool sendAndReceive = false;
    bool isFileOpen = false;
    std::string fileName;
    std::vector<int64_t> completedRids;  // <For rid=.../> children, kept until the call is complete
};

// Reads the top-level calls of a trace straight from the SAX attributes into
// columns: no Event is built, and <Nested> blocks (calls inside calls, which
// the table leaves out) are skipped unread; other elements below a call are
// checked as the Event reader checks them. Same structure and filters as
// TraceParser.
class ColumnHandler : public SaxHandler {
  public:
    ColumnHandler(EventColumns &columns, const TraceFilter &filter,
                  const LocalToWorldTable *localToWorld)
        : columns_(columns), filter_(filter), localToWorld_(localToWorld) {}
    void setParser(SaxFileParser *parser) { parser_ = parser; }
    int timeFractionDigits() const { return timeFractionDigits_; }

    void startElement(std::string_view name, const AttributeList &attributes) override;
    void endElement(std::string_view name) override;

  private:
    void startCall(std::string_view name, const AttributeList &attributes);
    void startChild(std::string_view name, const AttributeList &attributes);
    bool checkBelowCall(const AttributeList &attributes);
    void finishCall();
    bool parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds);
    int32_t nameCode(std::string_view name);
    // Fails (and returns false) when a number attribute does not fit in 64 bits.
    bool numbersFit(const AttributeList &attributes);
    int64_t toWorld(int64_t cid, int64_t rank);

    EventColumns &columns_;
    const TraceFilter &filter_;
    const LocalToWorldTable *localToWorld_;
    SaxFileParser *parser_ = nullptr;
    int depth_ = 0;
    int skipBelowDepth_ = 0;
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    OpenCall call_;
    // libxml2 interns element names, so a name's text pointer identifies it.
    // Both look-ups are hashed: the work stays linear in the number of calls
    // even with many distinct names.
    std::unordered_map<const char *, int32_t> codeByPointer_;
    std::unordered_map<std::string, int32_t> codeByName_;
};

int32_t ColumnHandler::nameCode(std::string_view name) {
    if (auto found = codeByPointer_.find(name.data()); found != codeByPointer_.end())
        return found->second;
    auto [entry, added] =
        codeByName_.try_emplace(std::string(name), static_cast<int32_t>(columns_.names.size()));
    if (added) columns_.names.emplace_back(name);
    codeByPointer_.emplace(name.data(), entry->second);
    return entry->second;
}

bool ColumnHandler::numbersFit(const AttributeList &attributes) {
    for (int index = 0; index < attributes.size(); ++index) {
        std::string_view name = attributes.name(index);
        std::string_view value = attributes.value(index);
        if (isNumberAttribute(name) && isOutOfRangeInteger(value)) {
            parser_->fail("attribute " + std::string(name) + "='" + std::string(value) +
                          "' does not fit in 64 bits");
            return false;
        }
        // The lowest int32 is the columns' "no value" (kNoValue32).
        auto number = parseInteger(value);
        if (number && isThirtyTwoBitColumn(name) &&
            (*number <= kNoValue32 || *number > std::numeric_limits<int32_t>::max())) {
            parser_->fail("attribute " + std::string(name) + "='" + std::string(value) +
                          "' does not fit in 32 bits");
            return false;
        }
    }
    return true;
}

int64_t ColumnHandler::toWorld(int64_t cid, int64_t rank) {
    if (rank < 0 || !localToWorld_) return rank;  // wildcards stay
    auto found = localToWorld_->find(cid);
    if (found == localToWorld_->end() || rank >= static_cast<int64_t>(found->second.size()) ||
        found->second[static_cast<size_t>(rank)] < 0) {
        ++columns_.untranslatedPeers;
        return rank;
    }
    return found->second[static_cast<size_t>(rank)];
}

bool ColumnHandler::parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds) {
    auto parsed = parseDecimalSeconds(text);
    if (!parsed) {
        parser_->fail("attribute " + std::string(name) + "='" + std::string(text) +
                      "' is not a time in seconds");
        return false;
    }
    auto absolute = addTimes(timeAdjustmentNs_, parsed->nanoseconds);
    if (!absolute) {
        parser_->fail("attribute " + std::string(name) + "='" + std::string(text) +
                      "' plus timeAdjustment overflows 64-bit nanoseconds");
        return false;
    }
    if (timeFractionDigits_ < 0) timeFractionDigits_ = parsed->fractionDigits;
    *nanoseconds = *absolute;
    return true;
}

void ColumnHandler::startElement(std::string_view name, const AttributeList &attributes) {
    ++depth_;
    if (skipBelowDepth_ > 0) return;
    if (depth_ == 1) {
        TraceParser::startProgram(*parser_, name, attributes, &timeAdjustmentNs_);
    } else if (depth_ == 2) {
        startCall(name, attributes);
    } else if (name == "Nested") {
        skipBelowDepth_ = depth_;  // calls inside calls are not in the table: skipped unread
    } else {
        if (!checkBelowCall(attributes)) return;
        if (depth_ == 3) startChild(name, attributes);
    }
}

// Elements below a call are not in the table (but <For> and <Data>), yet the
// columns refuse what the Event reader refuses in them: the same trace is
// either readable or not, whichever reader is asked.
bool ColumnHandler::checkBelowCall(const AttributeList &attributes) {
    if (!numbersFit(attributes)) return false;
    std::string_view value;
    int64_t unused = 0;
    if (attributes.find("time", &value) && !parseTime("time", value, &unused)) return false;
    if (attributes.find("end", &value) && !parseTime("end", value, &unused)) return false;
    return true;
}

void ColumnHandler::startCall(std::string_view name, const AttributeList &attributes) {
    if (name == "Nested" ||
        (!filter_.names.empty() &&
         std::find(filter_.names.begin(), filter_.names.end(), name) == filter_.names.end())) {
        skipBelowDepth_ = depth_;
        return;
    }
    std::vector<int64_t> rids = std::move(call_.completedRids);
    std::string fileName = std::move(call_.fileName);
    call_ = OpenCall();
    rids.clear();
    fileName.clear();
    call_.completedRids = std::move(rids);  // keeps their memory from call to call
    call_.fileName = std::move(fileName);
    call_.nameCode = nameCode(name);
    if (!numbersFit(attributes)) return;
    for (int index = 0; index < attributes.size(); ++index) {
        const std::string_view attribute = attributes.name(index);
        const std::string_view value = attributes.value(index);
        switch (attribute[0]) {
            case 't':
                if (attribute == "time") {
                    if (!parseTime(attribute, value, &call_.startNs)) return;
                    call_.hasStart = true;
                } else if (attribute == "toRank" && call_.peerPriority > 1) {
                    call_.peer = integerOr(value, kNoValue32), call_.peerPriority = 1;
                } else if (attribute == "toTag" && call_.tagPriority > 1) {
                    call_.tag = integerOr(value, kNoValue32), call_.tagPriority = 1;
                } else if (attribute == "tag" && call_.tagPriority > 3) {
                    call_.tag = integerOr(value, kNoValue32), call_.tagPriority = 3;
                }
                break;
            case 'e':
                if (attribute == "end") {
                    if (!parseTime(attribute, value, &call_.endNs)) return;
                    call_.hasEnd = true;
                }
                break;
            case 's':
                if (attribute == "size")
                    call_.size = integerOr(value, -1);
                else if (attribute == "sendSize" && call_.sizeFallback < 0)
                    call_.sizeFallback = integerOr(value, -1);
                else if (attribute == "source" && call_.peerPriority > 4)
                    call_.peer = integerOr(value, kNoValue32), call_.peerPriority = 4;
                break;
            case 'r':
                if (attribute == "rid")
                    call_.rid = integerOr(value, -1);
                else if ((attribute == "root" || attribute == "rootRank") && call_.peerPriority > 3)
                    call_.peer = integerOr(value, kNoValue32), call_.peerPriority = 3;
                else if (attribute == "recvSize" && call_.sizeFallback < 0)
                    call_.sizeFallback = integerOr(value, -1);
                break;
            case 'f':
                if (attribute == "fid")
                    call_.fid = integerOr(value, -1);
                else if (attribute == "fromRank")
                    call_.recvPeer = integerOr(value, kNoValue32);
                else if (attribute == "fromTag")
                    call_.recvTag = integerOr(value, kNoValue32);
                break;
            case 'c':
                if (attribute == "cid") call_.cid = integerOr(value, -1);
                break;
            case 'o':
                if (attribute == "offset") call_.offset = integerOr(value, -1);
                break;
            case 'n':
                if (attribute == "name") call_.fileName.assign(value);
                break;
            default:
                break;
        }
    }
    if (!call_.hasEnd) call_.endNs = call_.startNs;
    if (filter_.hasTimeWindow()) {
        if (call_.hasStart && call_.startNs > filter_.toNs) {
            parser_->stop();
            return;
        }
        if (!call_.hasStart || call_.endNs < filter_.fromNs) {
            skipBelowDepth_ = depth_;
            return;
        }
    }
    call_.sendAndReceive = name == "Sendrecv" || name == "Sendrecv_replace";
    call_.isFileOpen = name == "File_open";
}

void ColumnHandler::startChild(std::string_view name, const AttributeList &attributes) {
    std::string_view value;
    if (name == "For") {
        if (attributes.find("rid", &value)) call_.completedRids.push_back(integerOr(value, -1));
    } else if (name == "Data") {
        // Split collectives carry their access in <Data offset size .../>.
        if (call_.size < 0 && attributes.find("size", &value)) call_.size = integerOr(value, -1);
        if (call_.offset < 0 && attributes.find("offset", &value))
            call_.offset = integerOr(value, -1);
    }
}

void ColumnHandler::endElement(std::string_view) {
    int depth = depth_--;
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 2) finishCall();
}

void ColumnHandler::finishCall() {
    OpenCall &call = call_;
    if (call.size < 0) call.size = call.sizeFallback;
    if (call.recvPeer != kNoValue32) {
        call.recvPeer = toWorld(call.cid, call.recvPeer);
        if (call.peerPriority > 2) call.peer = call.recvPeer, call.peerPriority = 2;
    }
    if (call.recvTag != kNoValue32 && call.tagPriority > 2)
        call.tag = call.recvTag, call.tagPriority = 2;
    if (call.peer != kNoValue32 && call.peerPriority != 2) call.peer = toWorld(call.cid, call.peer);
    for (int64_t rid : call.completedRids) {
        columns_.completionRow.push_back(static_cast<int64_t>(columns_.rows()));
        columns_.completionRid.push_back(rid);
    }
    if (call.isFileOpen && !call.fileName.empty()) {
        columns_.openRow.push_back(static_cast<int64_t>(columns_.rows()));
        columns_.openFid.push_back(call.fid);
        columns_.openName.push_back(call.fileName);
    }
    columns_.nameCode.push_back(call.nameCode);
    columns_.startNs.push_back(call.startNs);
    columns_.endNs.push_back(call.endNs);
    columns_.size.push_back(call.size);
    columns_.offset.push_back(call.offset);
    columns_.rid.push_back(call.rid);
    columns_.peer.push_back(static_cast<int32_t>(call.peer));
    columns_.tag.push_back(static_cast<int32_t>(call.tag));
    columns_.cid.push_back(static_cast<int32_t>(call.cid));
    columns_.fid.push_back(static_cast<int32_t>(call.fid));
    columns_.recvPeer.push_back(
        static_cast<int32_t>(call.sendAndReceive ? call.recvPeer : kNoValue32));
    columns_.recvTag.push_back(
        static_cast<int32_t>(call.sendAndReceive ? call.recvTag : kNoValue32));
}

}  // namespace

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld) {
    ColumnsResult result;
    // Calls take 60 to 150 bytes of XML: reserving for the file's size saves
    // the copies of growing a dozen columns.
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && info.st_size > 0)
        result.columns.reserve(static_cast<size_t>(info.st_size) / 100);
    ColumnHandler handler(result.columns, options.filter, localToWorld);
    SaxFileParser parser(path, handler);
    handler.setParser(&parser);
    try {
        parser.parseAll();
    } catch (const ReadError &error) {
        if (!options.partial) throw;
        result.damage = error.what();
    }
    result.timeFractionDigits = handler.timeFractionDigits();
    return result;
}

ColumnsResult readEventColumnsWithLibxml2(const std::string &path, const TraceOptions &options,
                                          const LocalToWorldTable *localToWorld,
                                          std::vector<InputPiece> pieces,
                                          std::function<int(int)> fileLine) {
    ColumnsResult result;
    ColumnHandler handler(result.columns, options.filter, localToWorld);
    SaxFileParser parser(path, handler, std::move(pieces), std::move(fileLine));
    handler.setParser(&parser);
    try {
        parser.parseAll();
    } catch (const InputEndError &) {
        throw;  // the caller finds out what it is
    } catch (const ReadError &error) {
        if (!options.partial) throw;
        result.damage = error.what();
    }
    result.timeFractionDigits = handler.timeFractionDigits();
    return result;
}

}  // namespace hdtrace::reader
