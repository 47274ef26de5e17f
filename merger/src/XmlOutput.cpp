#include "XmlOutput.hpp"

#include <hdtrace/codec/Format.hpp>

namespace hdtrace::merger {
namespace {

// Length of the valid UTF-8 sequence at text[pos], or 0.
size_t utf8SequenceLength(const std::string &text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    size_t length = 0;
    uint32_t code = 0;
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        code = lead & 0x07;
    } else {
        return 0;
    }
    if (pos + length > text.size()) return 0;
    for (size_t i = 1; i < length; ++i) {
        if ((byte(pos + i) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(pos + i) & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) ||
        code == 0xFFFE || code == 0xFFFF)
        return 0;
    return length;
}

void appendCodePoint(std::string &out, uint32_t code) {
    if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

}  // namespace

std::string xmlText(const std::string &text) {
    bool clean = true;
    for (size_t pos = 0; pos < text.size() && clean;) {
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = utf8SequenceLength(text, pos);
        if (length == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) clean = false;
        pos += length ? length : 1;
    }
    if (clean) return text;
    std::string out;
    for (size_t pos = 0; pos < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = utf8SequenceLength(text, pos);
        if (length == 0) {
            appendCodePoint(out, c);
            ++pos;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            appendCodePoint(out, 0x2400 + c);
            ++pos;
        } else {
            out.append(text, pos, length);
            pos += length;
        }
    }
    return out;
}

namespace {

// The escapes libxml2's text writer (which wrote the project before) uses,
// so that the output stays the same byte for byte: in attribute values also
// the blanks that attribute-value normalisation would turn into spaces.
void appendEscaped(std::string &out, const std::string &text, bool attribute) {
    size_t clean = 0;
    for (size_t pos = 0; pos < text.size(); ++pos) {
        const char *escape = nullptr;
        switch (text[pos]) {
            case '&':
                escape = "&amp;";
                break;
            case '<':
                escape = "&lt;";
                break;
            case '>':
                escape = "&gt;";
                break;
            case '"':
                escape = "&quot;";
                break;
            case '\r':
                escape = "&#13;";
                break;
            case '\n':
                escape = attribute ? "&#10;" : nullptr;
                break;
            case '\t':
                escape = attribute ? "&#9;" : nullptr;
                break;
            default:
                break;
        }
        if (!escape) continue;
        out.append(text, clean, pos - clean);
        out += escape;
        clean = pos + 1;
    }
    out.append(text, clean, std::string::npos);
}

// Whether text needs xmlText()'s repairs: anything but printable ASCII.
bool plainAscii(const std::string &text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
            return false;
    return true;
}

}  // namespace

// The layout of libxml2's text writer with an indentation of one space:
// each element on a line of its own, indented by its depth; an element
// without content as <a/>, one with text as <a>text</a>.
void XmlOutput::closeStartTag() {
    if (open_.empty() || open_.back().content != Content::None) return;
    out_ += ">\n";
    open_.back().content = Content::Elements;
}

void XmlOutput::appendElements(std::string_view elements) {
    closeStartTag();
    if (!open_.empty()) open_.back().content = Content::Elements;
    out_ += elements;
}

void XmlOutput::indent() {
    out_.append(outerDepth_ + open_.size(), ' ');
}

void XmlOutput::startElement(const char *tag) {
    closeStartTag();
    indent();
    out_ += '<';
    out_ += tag;
    open_.push_back({tag, Content::None});
}

void XmlOutput::endElement() {
    const OpenElement element = open_.back();
    open_.pop_back();
    if (element.content == Content::None) {
        out_ += "/>\n";
    } else {
        if (element.content == Content::Elements) indent();
        out_ += "</";
        out_ += element.tag;
        out_ += ">\n";
    }
}

void XmlOutput::fullEndElement() {
    if (open_.back().content == Content::None) {
        out_ += '>';
        open_.back().content = Content::Text;
    }
    endElement();
}

void XmlOutput::text(const std::string &value) {
    if (open_.back().content == Content::None) out_ += '>';
    open_.back().content = Content::Text;
    // Plain ASCII, as nearly every value is, is escaped as it is: the
    // conditional operator would copy it.
    if (plainAscii(value))
        appendEscaped(out_, value, false);
    else
        appendEscaped(out_, xmlText(value), false);
}

void XmlOutput::attribute(const char *name, const std::string &value) {
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
    if (plainAscii(value))
        appendEscaped(out_, value, true);
    else
        appendEscaped(out_, xmlText(value), true);
    out_ += '"';
}

void XmlOutput::attribute(const char *name, int64_t value) {
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
    appendInteger(out_, value);
    out_ += '"';
}

}  // namespace hdtrace::merger
