#include <fstream>
#include <string_view>

#include <hdtrace/clocks/ClockLines.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "DecimalNumber.hpp"

namespace hdtrace::clocks {
namespace {

// Reads the literal `expected` at text's front.
bool consume(std::string_view &text, std::string_view expected) {
    if (text.substr(0, expected.size()) != expected) return false;
    text.remove_prefix(expected.size());
    return true;
}

// Reads "[-]DIGITS" up to the next space or the end; negative only where allowed.
bool consumeInteger(std::string_view &text, bool allowNegative, int64_t *value) {
    const size_t length = std::min(text.find(' '), text.size());
    std::string_view digits = text.substr(0, length);
    if (!allowNegative && !digits.empty() && digits[0] == '-') return false;
    auto parsed = reader::parseInteger(digits);
    if (!parsed) return false;
    *value = *parsed;
    text.remove_prefix(length);
    return true;
}

bool parseClockLine(std::string_view text, ClockMeasurement *out) {
    if (!consume(text, "Clock at='")) return false;
    const size_t quote = text.find('\'');
    if (quote == std::string_view::npos || quote == 0) return false;
    for (char c : text.substr(0, quote))
        if (c < 'a' || c > 'z') return false;
    out->occasion = std::string(text.substr(0, quote));
    text.remove_prefix(quote + 1);
    return consume(text, " time=") && consumeInteger(text, true, &out->timeNs) &&
           consume(text, " offset=") && consumeInteger(text, true, &out->offsetNs) &&
           consume(text, " rtt=") && consumeInteger(text, false, &out->rttNs) &&
           consume(text, " leader=") && consumeInteger(text, false, &out->leader) &&
           consume(text, " exchanges=") && consumeInteger(text, false, &out->exchanges) &&
           text.empty();
}

bool parseAlignedLine(std::string_view text, std::string *backup) {
    if (!consume(text, "ClockAligned backup='") || text.size() < 2 || text.back() != '\'')
        return false;
    text.remove_suffix(1);
    if (text.empty() || text.find_first_of("'/") != std::string_view::npos) return false;
    *backup = std::string(text);
    return true;
}

}  // namespace

std::string infoPathOf(const std::string &tracePath) {
    const std::string suffix = ".trc";
    const size_t slash = tracePath.rfind('/');
    const size_t baseLength = tracePath.size() - (slash == std::string::npos ? 0 : slash + 1);
    // As os.path.splitext: a base name that is only ".trc" has no extension.
    const bool hasSuffix =
        baseLength > suffix.size() &&
        tracePath.compare(tracePath.size() - suffix.size(), suffix.size(), suffix) == 0;
    return (hasSuffix ? tracePath.substr(0, tracePath.size() - suffix.size()) : tracePath) +
           ".info";
}

std::string alignedLine(const std::string &backupName) {
    return "ClockAligned backup='" + backupName + "'";
}

InfoClock readInfoClock(const std::string &infoPath) {
    std::ifstream stream(infoPath, std::ios::binary);
    if (!stream) throw reader::ReadError(infoPath, 0, 0, "cannot be opened");
    InfoClock found;
    found.path = infoPath;
    std::string line;
    int number = 0;
    while (std::getline(stream, line)) {
        ++number;
        if (line.compare(0, 5, "Clock") != 0) continue;
        const std::string_view keyword = std::string_view(line).substr(0, line.find(' '));
        if (keyword == "ClockAligned") {
            std::string backup;
            if (!parseAlignedLine(line, &backup))
                throw reader::ReadError(infoPath, number, 0,
                                        "damaged ClockAligned line \"" + line +
                                            "\": expected ClockAligned backup='<file>'");
            found.alignedBackup = backup;
            continue;
        }
        if (keyword != "Clock") continue;  // another kind that happens to start so: not ours
        ClockMeasurement measurement;
        if (!parseClockLine(line, &measurement))
            throw reader::ReadError(infoPath, number, 0,
                                    "damaged Clock line \"" + line +
                                        "\": expected Clock at='<occasion>' time=<ns> "
                                        "offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>");
        found.measurements.push_back(std::move(measurement));
    }
    return found;
}

}  // namespace hdtrace::clocks
