#include <fnmatch.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <hdtrace/filter/TraceFilter.hpp>

#include "DialectCallTable.hpp"
#include "FilterParser.hpp"

namespace hdtrace::filter {

std::string Place::text() const {
    if (line <= 0) return source;
    return source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

FilterError::FilterError(Place place, const std::string &message)
    : std::runtime_error(place.text() + ": " + message), place_(std::move(place)) {}

const std::vector<CallEntry> &dialectCalls() {
    static const std::vector<CallEntry> calls = [] {
        std::vector<CallEntry> entries;
        for (const DialectCall &call : kCalls)
            entries.push_back({call.tag, call.name, call.layer, call.groups});
        return entries;
    }();
    return calls;
}

const std::vector<GroupEntry> &dialectGroups() {
    static const std::vector<GroupEntry> groups = [] {
        std::vector<GroupEntry> entries;
        for (const DialectGroup &group : kGroups)
            entries.push_back({group.name, group.about, group.layer});
        return entries;
    }();
    return groups;
}

int callIndexOf(std::string_view tag) {
    for (int index = 0; index < kCallCount; ++index)
        if (kCalls[index].tag == tag) return index;
    return -1;
}

void TraceFilter::addText(std::string_view text, const std::string &source) {
    std::vector<std::string> warnings;
    std::vector<Rule> rules = parseRules(text, source, warnings);  // throws before adding
    for (Rule &rule : rules)
        rules_.push_back(std::move(rule));
    warnings_.insert(warnings_.end(), warnings.begin(), warnings.end());
}

void TraceFilter::addFile(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    if (!file)
        throw FilterError(Place{path, 0, 0},
                          "cannot be read: " + std::string(std::strerror(errno)));
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) throw FilterError(Place{path, 0, 0}, "cannot be read");
    addText(text.str(), path);
}

void TraceFilter::addRule(Rule rule) {
    rules_.push_back(std::move(rule));
}

namespace {

bool matches(const std::vector<std::string> &patterns, const std::string &text) {
    for (const std::string &pattern : patterns)
        if (fnmatch(pattern.c_str(), text.c_str(), 0) == 0) return true;
    return false;
}

}  // namespace

bool TraceFilter::tracesCall(int callIndex) const {
    if (callIndex < 0 || callIndex >= kCallCount) return true;
    const DialectCall &call = kCalls[callIndex];
    const std::string name(call.name);
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
        if (rule->kind == Rule::Kind::Call && matches(rule->patterns, name)) return rule->include;
        if (rule->kind == Rule::Kind::Group)
            for (int group : rule->groups)
                if (call.groups >> group & 1) return rule->include;
    }
    return true;
}

std::vector<uint8_t> TraceFilter::tracedCalls() const {
    std::vector<uint8_t> traced(kCallCount);
    for (int index = 0; index < kCallCount; ++index)
        traced[index] = tracesCall(index) ? 1 : 0;
    return traced;
}

bool TraceFilter::tracesFile(std::string_view normalisedPath) const {
    const std::string path(normalisedPath);
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule)
        if (rule->kind == Rule::Kind::File && matches(rule->patterns, path)) return rule->include;
    return true;
}

bool TraceFilter::tracesRank(int64_t rank) const {
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
        if (rule->kind != Rule::Kind::Ranks) continue;
        for (const RankRange &range : rule->ranks)
            if (rank >= range.first && rank <= range.last) return true;
        return false;
    }
    return true;
}

bool TraceFilter::hasFileRules() const {
    for (const Rule &rule : rules_)
        if (rule.kind == Rule::Kind::File) return true;
    return false;
}

bool TraceFilter::hasRanksRule() const {
    for (const Rule &rule : rules_)
        if (rule.kind == Rule::Kind::Ranks) return true;
    return false;
}

}  // namespace hdtrace::filter
