// Puts the calls of a trace, as its elements arrive in document order, into
// a CallTree in pre-order. In a trace a call's nested calls come first, in
// the <Nested> block before its element; the assembler holds them until
// their caller's element arrives, and writes each top-level call with
// everything nested in it once its element ends. The readers of each form
// (the XML scanner, the compact records) feed it what a call carries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <hdtrace/reader/CallTree.hpp>

namespace hdtrace::reader {

// What the tree keeps of one call; -1: the call does not carry it.
struct CallValues {
    int64_t startNs = 0;
    int64_t endNs = 0;
    bool hasEnd = false;
    int64_t fid = -1;
    int64_t offset = -1;
    int64_t size = -1;
    int64_t asked = -1;
    bool failed = false;
    std::string_view openedName;  // a file open's name, when it has one
    bool hasOpenedName = false;
};

class CallTreeAssembler {
  public:
    // What an element at a depth is; depth 1 is the root.
    enum class Element { Root, Nested, Call, Child };
    explicit CallTreeAssembler(CallTree &tree) : tree_(tree) {}

    // False where the element is not where a trace can have it (the reader
    // then leaves the trace to the event reader, which says what is wrong).
    bool startRoot();
    bool startNested(int depth);
    bool startCall(int depth, std::string_view name, const CallValues &values);
    // A child element of the call at depth - 1 (<Data>, <For>, <Info>):
    // dataSize/dataOffset of a <Data>, else -1.
    bool startChild(int depth, bool isData, int64_t dataSize, int64_t dataOffset);
    bool endElement(int depth);
    // Whether the trace ended with everything it started complete.
    bool finished() const { return openDepth_ == 0 && nodes_.empty(); }
    // Whether the element at depth - 1 is a call (so one at depth is its child).
    bool parentIsCall(int depth) const {
        return depth >= 2 && depth - 1 <= openDepth_ && kinds_[depth - 1] == Element::Call;
    }

  private:
    struct Node {
        int32_t nameCode;
        CallValues values;
        std::string openedName;
        int64_t dataSize = -1;
        int64_t dataOffset = -1;
        uint32_t childBegin = 0;  // in children_
        uint32_t childCount = 0;
    };
    int32_t code(std::string_view name);
    void emit(uint32_t node, int depth, int64_t parent);
    bool push(int depth, Element kind);

    CallTree &tree_;
    std::vector<Node> nodes_;                     // the calls of the top-level call being read
    std::vector<uint32_t> children_;              // nodes' children, by range
    std::vector<std::vector<uint32_t>> pending_;  // by depth: calls of the <Nested> block there
    std::vector<Element> kinds_;                  // by depth: the open elements
    std::vector<uint32_t> openNode_;              // by depth: the node of an open call
    int openDepth_ = 0;
    int64_t topRow_ = 0;
    static constexpr size_t kRecentNames = 32;
    std::unordered_map<std::string, int32_t> codes_;
    // The first names met, viewing the map's keys (which never move).
    std::vector<std::pair<std::string_view, int32_t>> recent_;
};

}  // namespace hdtrace::reader
