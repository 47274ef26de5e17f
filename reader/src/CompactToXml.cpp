#include "CompactToXml.hpp"

#include <cerrno>
#include <cstring>

namespace hdtrace::reader {

namespace {
constexpr size_t kDrainBytes = 1 << 20;
constexpr std::string_view kProlog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
}  // namespace

void CompactToXml::indent(int levels) {
    buffer_.append(static_cast<size_t>(2 * levels), ' ');
}

void CompactToXml::openTag(std::string_view name, const CompactAttributes &attributes) {
    buffer_ += '<';
    buffer_ += name;
    char number[kMaxNumberChars];
    for (int index = 0; index < attributes.slotCount(); ++index) {
        const CompactAttributes::Slot &slot = attributes.slot(index);
        if (slot.coding == compact::kRaw) {
            buffer_ += slot.text;
            continue;
        }
        buffer_ += ' ';
        buffer_ += slot.name;
        buffer_ += "='";
        if (slot.coding == compact::kText) {
            appendXmlEscaped(buffer_, slot.text);
        } else if (slot.coding == compact::kTime || slot.coding == compact::kEnd) {
            buffer_.append(number, formatRelativeTime(number, slot.number));
        } else {
            buffer_.append(number, formatInteger(number, slot.number));
        }
        buffer_ += '\'';
    }
}

void CompactToXml::startElement(std::string_view name, const CompactAttributes &attributes) {
    if (pendingLeaf_) {
        // The call opened before has children: its start tag ends here.
        buffer_ += ">\n";
        pendingLeaf_ = false;
        inCall_ = true;
    }
    ++elementDepth_;
    if (elementDepth_ == 1) {
        buffer_ += kProlog;
        openTag(name, attributes);
        buffer_ += ">\n";
        return;
    }
    if (name == "Nested" && attributes.slotCount() == 0 && !inCall_) {
        indent(nestedDepth_);
        buffer_ += "<Nested>\n";
        ++nestedDepth_;
        return;
    }
    indent(inCall_ ? nestedDepth_ + 1 : nestedDepth_);
    openTag(name, attributes);
    pendingLeaf_ = true;
}

void CompactToXml::endElement(std::string_view name) {
    const int depth = elementDepth_--;
    if (pendingLeaf_) {
        buffer_ += "/>\n";
        pendingLeaf_ = false;
    } else if (depth == 1) {
        buffer_ += "</";
        buffer_ += name;
        buffer_ += ">\n";
    } else if (inCall_ && depth == 2 + nestedDepth_) {
        // The end of the call whose children were written.
        inCall_ = false;
        indent(nestedDepth_);
        buffer_ += "</";
        buffer_ += name;
        buffer_ += ">\n";
    } else {
        --nestedDepth_;
        indent(nestedDepth_);
        buffer_ += "</Nested>\n";
    }
    if (buffer_.size() >= kDrainBytes) drain();
}

bool CompactToXml::drain() {
    if (text_) {
        text_->append(buffer_);
    } else if (out_ && !failed_ && !buffer_.empty()) {
        failed_ = std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size();
    }
    buffer_.clear();
    return !failed_;
}

std::string convertCompactToXml(const std::string &path, const std::string &output, bool partial) {
    FrameFileOptions options;
    options.partial = partial;
    FrameFile file(path, options);
    std::FILE *out = output == "-" ? stdout : std::fopen(output.c_str(), "wb");
    if (!out) throw ReadError(output, 0, 0, std::string("cannot create: ") + std::strerror(errno));
    bool written = false;
    try {
        CompactToXml converter(out);
        CompactTraceReader reader(file);
        reader.read(converter);
        written = converter.drain();
    } catch (...) {
        if (out != stdout) {
            std::fclose(out);
            std::remove(output.c_str());  // no partial output
        }
        throw;
    }
    written = (out == stdout ? std::fflush(out) : std::fclose(out)) == 0 && written;
    if (!written) {
        if (out != stdout) std::remove(output.c_str());
        throw ReadError(output, 0, 0, "cannot write the XML text");
    }
    if (file.damage()) return *file.damage();
    if (!file.indexed())
        return path + ": cut after its last complete frame, at byte " +
               std::to_string(file.cutAt()) + " (its writer did not close it)";
    return std::string();
}

}  // namespace hdtrace::reader
