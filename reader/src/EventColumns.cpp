#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/EventColumns.hpp>

namespace hdtrace::reader {
namespace {

int64_t integerOr(const std::string &text, int64_t fallback) {
    auto value = parseInteger(text);
    return value ? *value : fallback;
}

// Fills the columns from each top-level call as the parser completes it.
class ColumnSink : public EventSink {
  public:
    ColumnSink(EventColumns &columns, const LocalToWorldTable *localToWorld)
        : columns_(columns), localToWorld_(localToWorld) {}

    void onEvent(const Event &event) override;

  private:
    int32_t nameCode(const std::string &name);
    int32_t toWorld(int64_t cid, int64_t rank);

    EventColumns &columns_;
    const LocalToWorldTable *localToWorld_;
    std::unordered_map<std::string, int32_t> codes_;
    std::string lastName_;
    int32_t lastCode_ = -1;
};

int32_t ColumnSink::nameCode(const std::string &name) {
    if (lastCode_ >= 0 && name == lastName_) return lastCode_;
    auto found = codes_.find(name);
    int32_t code;
    if (found != codes_.end()) {
        code = found->second;
    } else {
        code = static_cast<int32_t>(columns_.names.size());
        columns_.names.push_back(name);
        codes_.emplace(name, code);
    }
    lastName_ = name;
    lastCode_ = code;
    return code;
}

int32_t ColumnSink::toWorld(int64_t cid, int64_t rank) {
    if (rank < 0 || !localToWorld_) return static_cast<int32_t>(rank);  // wildcards stay
    auto found = localToWorld_->find(cid);
    if (found == localToWorld_->end() || rank >= static_cast<int64_t>(found->second.size()) ||
        found->second[static_cast<size_t>(rank)] < 0) {
        ++columns_.untranslatedPeers;
        return static_cast<int32_t>(rank);
    }
    return found->second[static_cast<size_t>(rank)];
}

void ColumnSink::onEvent(const Event &event) {
    int64_t row = static_cast<int64_t>(columns_.rows());
    int64_t size = -1, offset = -1, rid = -1, cid = -1, fid = -1;
    int64_t sizeFallback = -1;
    int64_t peer = kNoValue32, tag = kNoValue32;
    int64_t recvPeer = kNoValue32, recvTag = kNoValue32;
    int peerPriority = 99, tagPriority = 99;
    const std::string *fileName = nullptr;

    for (const Attribute &attribute : event.attributes) {
        const std::string &name = attribute.name;
        switch (name[0]) {
            case 's':
                if (name == "size")
                    size = integerOr(attribute.value, -1);
                else if (name == "sendSize" && sizeFallback < 0)
                    sizeFallback = integerOr(attribute.value, -1);
                else if (name == "source" && peerPriority > 4)
                    peer = integerOr(attribute.value, kNoValue32), peerPriority = 4;
                break;
            case 'r':
                if (name == "rid")
                    rid = integerOr(attribute.value, -1);
                else if ((name == "root" || name == "rootRank") && peerPriority > 3)
                    peer = integerOr(attribute.value, kNoValue32), peerPriority = 3;
                else if (name == "recvSize" && sizeFallback < 0)
                    sizeFallback = integerOr(attribute.value, -1);
                break;
            case 't':
                if (name == "toRank" && peerPriority > 1)
                    peer = integerOr(attribute.value, kNoValue32), peerPriority = 1;
                else if (name == "toTag" && tagPriority > 1)
                    tag = integerOr(attribute.value, kNoValue32), tagPriority = 1;
                else if (name == "tag" && tagPriority > 3)
                    tag = integerOr(attribute.value, kNoValue32), tagPriority = 3;
                break;
            case 'f':
                if (name == "fid")
                    fid = integerOr(attribute.value, -1);
                else if (name == "fromRank")
                    recvPeer = integerOr(attribute.value, kNoValue32);
                else if (name == "fromTag")
                    recvTag = integerOr(attribute.value, kNoValue32);
                break;
            case 'c':
                if (name == "cid") cid = integerOr(attribute.value, -1);
                break;
            case 'o':
                if (name == "offset") offset = integerOr(attribute.value, -1);
                break;
            case 'n':
                if (name == "name") fileName = &attribute.value;
                break;
            default:
                break;
        }
    }
    for (const Event &child : event.children) {
        if (child.name == "For") {
            if (const std::string *value = child.attribute("rid")) {
                columns_.completionRow.push_back(row);
                columns_.completionRid.push_back(integerOr(*value, -1));
            }
        } else if (child.name == "Data") {
            // Split collectives carry their access in <Data offset size .../>.
            if (const std::string *value = child.attribute("size"); value && size < 0)
                size = integerOr(*value, -1);
            if (const std::string *value = child.attribute("offset"); value && offset < 0)
                offset = integerOr(*value, -1);
        }
    }
    if (size < 0) size = sizeFallback;
    if (recvPeer != kNoValue32) {
        recvPeer = toWorld(cid, recvPeer);
        if (peerPriority > 2) peer = recvPeer, peerPriority = 2;
    }
    if (recvTag != kNoValue32 && tagPriority > 2) tag = recvTag, tagPriority = 2;
    if (peer != kNoValue32 && peerPriority != 2) peer = toWorld(cid, peer);
    bool sendAndReceive = event.name == "Sendrecv" || event.name == "Sendrecv_replace";
    columns_.recvPeer.push_back(static_cast<int32_t>(sendAndReceive ? recvPeer : kNoValue32));
    columns_.recvTag.push_back(static_cast<int32_t>(sendAndReceive ? recvTag : kNoValue32));
    if (fileName && event.name == "File_open") {
        columns_.openRow.push_back(row);
        columns_.openFid.push_back(fid);
        columns_.openName.push_back(*fileName);
    }

    columns_.nameCode.push_back(nameCode(event.name));
    columns_.startNs.push_back(event.startNs);
    columns_.endNs.push_back(event.endNs);
    columns_.size.push_back(size);
    columns_.offset.push_back(offset);
    columns_.rid.push_back(rid);
    columns_.peer.push_back(static_cast<int32_t>(peer));
    columns_.tag.push_back(static_cast<int32_t>(tag));
    columns_.cid.push_back(static_cast<int32_t>(cid));
    columns_.fid.push_back(static_cast<int32_t>(fid));
}

}  // namespace

ColumnsResult readEventColumns(const std::string &path, const TraceOptions &options,
                               const LocalToWorldTable *localToWorld) {
    ColumnsResult result;
    ColumnSink sink(result.columns, localToWorld);
    TraceParser parser(path, sink, options);
    parser.parseAll();
    result.damage = parser.damage();
    result.timeFractionDigits = parser.timeFractionDigits();
    return result;
}

}  // namespace hdtrace::reader
