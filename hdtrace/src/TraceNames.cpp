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

bool hasSuffix(std::string_view name, std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

bool isLayerName(std::string_view layer) {
    if (layer.empty()) return true;
    if (layer[0] < 'a' || layer[0] > 'z') return false;
    for (char c : layer)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    return true;
}

bool isLayerTraceFileName(std::string_view name) {
    for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix}) {
        if (!hasSuffix(name, suffix)) continue;
        name.remove_suffix(suffix.size());
        const size_t dot = name.rfind('.');
        if (dot == std::string_view::npos) return false;
        const std::string_view layer = name.substr(dot + 1);
        return !layer.empty() && isLayerName(layer) &&
               name.find('/', dot) == std::string_view::npos;
    }
    return false;
}

std::string traceBaseName(std::string_view program, const std::vector<std::string> &levels) {
    std::string name = sanitizeNamePart(program);
    for (const std::string &level : levels) {
        name += '_';
        name += sanitizeNamePart(level);
    }
    return name;
}

std::optional<TraceFileName> parseTraceFileName(std::string_view path, size_t levelCount) {
    TraceFileName parsed;
    const size_t slash = path.rfind('/');
    if (slash != std::string_view::npos) {
        parsed.directory = std::string(path.substr(0, slash));
        path.remove_prefix(slash + 1);
    }
    for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix, kInfoSuffix}) {
        if (path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix) {
            parsed.extension = std::string(suffix.substr(1));
            path.remove_suffix(suffix.size());
            break;
        }
    }
    parsed.levels.resize(levelCount);
    for (size_t i = levelCount; i-- > 0;) {
        const size_t separator = path.rfind('_');
        if (separator == std::string_view::npos) return std::nullopt;
        parsed.levels[i] = std::string(path.substr(separator + 1));
        path.remove_suffix(path.size() - separator);
        if (parsed.levels[i].empty()) return std::nullopt;
    }
    if (path.empty()) return std::nullopt;
    parsed.program = std::string(path);
    return parsed;
}

}  // namespace hdtrace
