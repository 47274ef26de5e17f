#include <fstream>
#include <string_view>

#include <hdtrace/InfoLine.hpp>
#include <hdtrace/TraceNames.hpp>
#include <hdtrace/clocks/ClockLines.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::clocks {
namespace {

// A Clock line's integer field; negative only where allowed.
bool integerField(const InfoLineFields &fields, size_t index, bool allowNegative, int64_t *value) {
    const std::string_view digits = fields[index].value;
    if (!allowNegative && !digits.empty() && digits[0] == '-') return false;
    auto parsed = reader::parseInteger(digits);
    if (!parsed) return false;
    *value = *parsed;
    return true;
}

// The fields in the definition's order, quoting and number: a Clock line
// has no optional field, so its fields are at fixed places.
bool parseClockLine(std::string_view text, ClockMeasurement *out) {
    InfoLineFields fields;
    if (!fields.split(text) || !fields.conforms() || fields.size() != 6) return false;
    const std::string_view occasion = fields[0].value;
    if (occasion.empty()) return false;
    for (char c : occasion)
        if (c < 'a' || c > 'z') return false;
    out->occasion = std::string(occasion);
    return integerField(fields, 1, true, &out->timeNs) &&
           integerField(fields, 2, true, &out->offsetNs) &&
           integerField(fields, 3, false, &out->rttNs) &&
           integerField(fields, 4, false, &out->leader) &&
           integerField(fields, 5, false, &out->exchanges);
}

bool parseAlignedLine(std::string_view text, std::string *backup) {
    InfoLineFields fields;
    if (!fields.split(text) || !fields.conforms()) return false;
    const std::string_view name = fields[0].value;
    if (name.empty() || name.find('/') != std::string_view::npos) return false;
    *backup = std::string(name);
    return true;
}

}  // namespace

std::string infoPathOf(const std::string &tracePath) {
    const size_t slash = tracePath.rfind('/');
    const size_t baseLength = tracePath.size() - (slash == std::string::npos ? 0 : slash + 1);
    for (std::string_view suffix : {kXmlTraceSuffix, kCompactTraceSuffix}) {
        // As os.path.splitext: a base name that is only the suffix has no extension.
        if (baseLength > suffix.size() &&
            std::string_view(tracePath).substr(tracePath.size() - suffix.size()) == suffix)
            return tracePath.substr(0, tracePath.size() - suffix.size()) + std::string(kInfoSuffix);
    }
    return tracePath + std::string(kInfoSuffix);
}

std::string alignedLine(const std::string &backupName) {
    std::string line;
    InfoLineWriter(line, "ClockAligned").text(backupName).end(false);
    return line;
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
