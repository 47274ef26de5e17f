#include <hdtrace/TraceNames.hpp>

namespace hdtrace {

std::string sanitizeNamePart(std::string_view part) {
    if (part.empty()) return "-";
    std::string result(part);
    for (char &c : result) {
        const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                             (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (!allowed) c = '-';
    }
    return result;
}

std::string traceBaseName(std::string_view program, const std::vector<std::string> &levels) {
    std::string name = sanitizeNamePart(program);
    for (const std::string &level : levels) {
        name += '_';
        name += sanitizeNamePart(level);
    }
    return name;
}

}  // namespace hdtrace
