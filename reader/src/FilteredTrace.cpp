#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/FilteredTrace.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "WriterLayout.hpp"

namespace hdtrace::reader {
namespace {

// One call of a record: its line, its children's lines, and the calls of
// the <Nested> block before it.
struct CallNode {
    std::string tag;
    std::string line;  // the start tag, without indentation or line break
    std::vector<std::string> children;
    std::vector<std::unique_ptr<CallNode>> nested;
    int64_t fid = -1;
};

class Rewriter {
  public:
    Rewriter(std::string path, const CallChoice &choice, std::FILE *out)
        : path_(std::move(path)), choice_(choice), out_(out) {}

    void take(std::string_view line) {
        ++lineNumber_;
        layout::Line element;
        if (!layout::classify(line, &element)) fail("not one element a line (the writer's layout)");
        using Kind = layout::Line::Kind;
        switch (element.kind) {
            case Kind::Blank:
                return;
            case Kind::Outside:
                if (!open_.empty()) fail("the root inside a call");
                return put(0, element.text);
            case Kind::NestedOpen:
                if (!open_.empty() && open_.back().node) fail("<Nested> inside a call's element");
                blocks_.emplace_back();
                open_.push_back(Open{nullptr, nullptr});
                return;
            case Kind::NestedClose:
                if (open_.empty() || open_.back().node) fail("</Nested> without <Nested>");
                open_.pop_back();
                pending_.push_back(std::move(blocks_.back()));
                blocks_.pop_back();
                return;
            case Kind::EndTag: {
                if (open_.empty() || !open_.back().node) fail("an end tag without its start");
                std::unique_ptr<CallNode> node = std::move(open_.back().owned);
                open_.pop_back();
                return complete(std::move(node));
            }
            case Kind::StartTag:
                break;
        }
        if (!open_.empty() && open_.back().node) {
            if (!element.leaf) fail("a child element with children");
            open_.back().node->children.emplace_back(element.text);
            return;
        }
        auto node = std::make_unique<CallNode>();
        node->tag = std::string(element.name);
        node->line = std::string(element.text);
        if (const auto fid = parseInteger(layout::attributeIn(element.text, "fid")))
            node->fid = *fid;
        // The block closed just before belongs to this call.
        if (!pending_.empty()) {
            node->nested = std::move(pending_.back());
            pending_.pop_back();
        }
        if (element.leaf) return complete(std::move(node));
        CallNode *raw = node.get();
        open_.push_back(Open{raw, std::move(node)});
    }

    void finish() {
        if (!open_.empty() || !pending_.empty())
            fail("the trace ends inside a call or a <Nested> block");
    }

  private:
    struct Open {
        CallNode *node;  // nullptr: a <Nested> block
        std::unique_ptr<CallNode> owned;
    };
    [[noreturn]] void fail(const std::string &problem) const {
        throw ReadError(path_, lineNumber_, 0, problem);
    }

    void complete(std::unique_ptr<CallNode> node) {
        if (!blocks_.empty() && !open_.empty() && !open_.back().node) {
            blocks_.back().push_back(std::move(node));  // inside a <Nested> block
            return;
        }
        emit(*node, 0);
    }

    bool kept(const CallNode &node) const {
        if (choice_.leftOutTags.count(node.tag)) return false;
        return !(choice_.fileTags.count(node.tag) && choice_.leftOutFids.count(node.fid));
    }
    // The kept calls of a block: a call left out gives the kept calls of
    // its own block in its place.
    void keptOf(std::vector<std::unique_ptr<CallNode>> &block, std::vector<CallNode *> &out) {
        for (auto &node : block) {
            if (kept(*node))
                out.push_back(node.get());
            else
                keptOf(node->nested, out);
        }
    }
    void emit(CallNode &node, int level) {
        std::vector<CallNode *> inner;
        keptOf(node.nested, inner);
        if (!kept(node)) {
            for (CallNode *moved : inner)
                emit(*moved, level);
            return;
        }
        if (!inner.empty()) {
            put(level, "<Nested>");
            for (CallNode *each : inner)
                emit(*each, level + 1);
            put(level, "</Nested>");
        }
        put(level, node.line);
        if (node.children.empty()) return;
        for (const std::string &child : node.children)
            put(level + 1, child);
        put(level, "</" + node.tag + ">");
    }
    void put(int level, std::string_view text) {
        for (int index = 0; index < level; ++index)
            std::fputs("  ", out_);
        std::fwrite(text.data(), 1, text.size(), out_);
        std::fputc('\n', out_);
    }

    std::string path_;
    const CallChoice &choice_;
    std::FILE *out_;
    int lineNumber_ = 0;
    std::vector<Open> open_;
    std::vector<std::vector<std::unique_ptr<CallNode>>> blocks_;   // open <Nested> blocks
    std::vector<std::vector<std::unique_ptr<CallNode>>> pending_;  // closed, owner to come
};

}  // namespace

void writeFilteredTrace(const std::string &source, const std::string &target,
                        const CallChoice &choice) {
    std::string xmlPath = source;
    std::unique_ptr<layout::ScratchFile> converted;
    if (traceFormOf(source) == TraceForm::Compact) {
        converted = std::make_unique<layout::ScratchFile>(".trc");
        convertTrace(source, converted->path(), TraceForm::Xml, 0, nullptr,
                     ConversionTarget::Scratch);
        xmlPath = converted->path();
    }
    using File = std::unique_ptr<std::FILE, int (*)(std::FILE *)>;
    File in(std::fopen(xmlPath.c_str(), "rb"), std::fclose);
    if (!in) throw ReadError(source, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    File out(std::fopen(target.c_str(), "wb"), std::fclose);
    if (!out) throw ReadError(target, 0, 0, std::string("cannot create: ") + std::strerror(errno));
    bool read = false;
    try {
        Rewriter rewriter(source, choice, out.get());
        read = layout::forEachLine(in.get(), [&](std::string_view line) { rewriter.take(line); });
        rewriter.finish();
    } catch (...) {
        out.reset();
        std::remove(target.c_str());
        throw;
    }
    const bool written = std::ferror(out.get()) == 0 && std::fflush(out.get()) == 0;
    out.reset();
    if (!read || !written) {
        std::remove(target.c_str());
        throw ReadError(read ? target : source, 0, 0, read ? "cannot write" : "cannot read");
    }
}

CallCosts filteredCallCostsOf(const std::string &source, const CallChoice &choice) {
    const layout::ScratchFile filtered(".trc");
    writeFilteredTrace(source, filtered.path(), choice);
    return callCostsOf(filtered.path());
}

}  // namespace hdtrace::reader
