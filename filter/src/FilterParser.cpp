#include "FilterParser.hpp"

#include <fnmatch.h>

#include <charconv>
#include <utility>

namespace hdtrace::filter {
namespace {

struct Word {
    std::string_view text;
    int column;  // from 1
};

// The words of one line before its comment. A '#' starts a comment where
// a word could start, so that a pattern may still hold one.
std::vector<Word> wordsOf(std::string_view line) {
    std::vector<Word> words;
    size_t at = 0;
    while (at < line.size()) {
        const char c = line[at];
        if (c == ' ' || c == '\t' || c == '\r') {
            ++at;
            continue;
        }
        if (c == '#') break;
        const size_t start = at;
        while (at < line.size() && line[at] != ' ' && line[at] != '\t' && line[at] != '\r')
            ++at;
        words.push_back({line.substr(start, at - start), static_cast<int>(start) + 1});
    }
    return words;
}

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

class LineParser {
  public:
    LineParser(const std::string &source, int line, std::vector<Word> words,
               std::vector<std::string> &warnings)
        : source_(source), line_(line), words_(std::move(words)), warnings_(warnings) {}

    Rule parse() {
        const Word &verb = words_[0];
        Rule rule;
        rule.place = placeOf(verb);
        if (verb.text == "include" || verb.text == "exclude") {
            rule.include = verb.text == "include";
            parseSelection(rule);
        } else if (verb.text == "layer") {
            parseLayer(rule);
        } else if (verb.text == "ranks") {
            parseRanks(rule);
        } else {
            fail(verb,
                 "expected a rule: include, exclude, layer or ranks; found " + quoted(verb.text));
        }
        return rule;
    }

  private:
    Place placeOf(const Word &word) const { return Place{source_, line_, word.column}; }
    Place endOfLine() const {
        const Word &last = words_.back();
        return Place{source_, line_, last.column + static_cast<int>(last.text.size())};
    }
    [[noreturn]] void fail(const Word &word, const std::string &message) const {
        throw FilterError(placeOf(word), message);
    }
    [[noreturn]] void failAtEnd(const std::string &message) const {
        throw FilterError(endOfLine(), message);
    }
    void warn(const Word &word, const std::string &message) {
        warnings_.push_back(placeOf(word).text() + ": " + message);
    }

    void parseSelection(Rule &rule) {
        const std::string verb(words_[0].text);
        if (words_.size() < 2) failAtEnd("expected call, group or file after '" + verb + "'");
        const Word &kind = words_[1];
        if (words_.size() < 3) {
            if (kind.text == "call" || kind.text == "group" || kind.text == "file")
                failAtEnd("expected at least one " +
                          std::string(kind.text == "group" ? "group name" : "pattern") +
                          " after '" + verb + " " + std::string(kind.text) + "'");
        }
        if (kind.text == "call") {
            rule.kind = Rule::Kind::Call;
            for (size_t index = 2; index < words_.size(); ++index) {
                const Word &pattern = words_[index];
                rule.patterns.emplace_back(pattern.text);
                if (!matchesSomeCall(rule.patterns.back()))
                    warn(pattern, "call pattern " + quoted(pattern.text) +
                                      " matches no call the wrapper writes");
            }
        } else if (kind.text == "group") {
            rule.kind = Rule::Kind::Group;
            for (size_t index = 2; index < words_.size(); ++index)
                rule.groups.push_back(groupIndex(words_[index], false));
        } else if (kind.text == "file") {
            rule.kind = Rule::Kind::File;
            for (size_t index = 2; index < words_.size(); ++index)
                rule.patterns.emplace_back(words_[index].text);
        } else {
            fail(kind,
                 "expected call, group or file after '" + verb + "'; found " + quoted(kind.text));
        }
    }

    void parseLayer(Rule &rule) {
        if (words_.size() < 2) failAtEnd("expected a layer after 'layer': " + namesOf(true));
        rule.kind = Rule::Kind::Group;
        rule.groups.push_back(groupIndex(words_[1], true));
        const std::string said = "'layer " + std::string(words_[1].text) + "'";
        if (words_.size() < 3) failAtEnd("expected on or off after " + said);
        const Word &state = words_[2];
        if (state.text != "on" && state.text != "off")
            fail(state, "expected on or off after " + said + "; found " + quoted(state.text));
        if (words_.size() > 3)
            fail(words_[3], "expected the end of the line after 'layer " +
                                std::string(words_[1].text) + " " + std::string(state.text) +
                                "'; found " + quoted(words_[3].text));
        rule.include = state.text == "on";
    }

    void parseRanks(Rule &rule) {
        rule.kind = Rule::Kind::Ranks;
        if (words_.size() < 2) failAtEnd("expected ranks after 'ranks' (such as 0-15,1024 or all)");
        if (words_.size() == 2 && words_[1].text == "all") {
            rule.ranks.push_back({0, INT64_MAX});
            return;
        }
        // "0-15,1024", "0-15, 1024" and "0-15 1024" say the same.
        for (size_t index = 1; index < words_.size(); ++index) {
            const Word &word = words_[index];
            size_t at = 0;
            while (at <= word.text.size()) {
                const size_t comma = std::min(word.text.find(',', at), word.text.size());
                const std::string_view item = word.text.substr(at, comma - at);
                if (!item.empty())
                    rule.ranks.push_back(
                        rankRange(item, Word{item, word.column + static_cast<int>(at)}));
                at = comma + 1;
            }
        }
        if (rule.ranks.empty())
            failAtEnd("expected ranks after 'ranks' (such as 0-15,1024 or all)");
    }

    RankRange rankRange(std::string_view item, const Word &where) const {
        const size_t dash = item.find('-');
        RankRange range;
        const bool ok = dash == std::string_view::npos
                            ? rank(item, &range.first) && ((range.last = range.first), true)
                            : rank(item.substr(0, dash), &range.first) &&
                                  rank(item.substr(dash + 1), &range.last);
        if (!ok)
            fail(where, "expected a rank (a whole number from 0) or a range FIRST-LAST; found " +
                            quoted(item));
        if (range.last < range.first)
            fail(where, "the range " + quoted(item) + " ends before it starts");
        return range;
    }
    static bool rank(std::string_view text, int64_t *value) {
        if (text.empty() || text.front() < '0' || text.front() > '9') return false;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
        return error == std::errc() && end == text.data() + text.size();
    }

    int groupIndex(const Word &word, bool layer) const {
        const std::vector<GroupEntry> &groups = dialectGroups();
        for (size_t index = 0; index < groups.size(); ++index)
            if (groups[index].name == word.text && (!layer || groups[index].layer))
                return static_cast<int>(index);
        if (layer) fail(word, "unknown layer " + quoted(word.text) + "; expected " + namesOf(true));
        fail(word, "unknown group " + quoted(word.text) + "; expected one of " + namesOf(false) +
                       " (docs/user/filters.md says what each holds)");
    }
    static std::string namesOf(bool layers) {
        std::string names;
        for (const GroupEntry &group : dialectGroups()) {
            if (layers && !group.layer) continue;
            if (!names.empty()) names += ", ";
            names += group.name;
        }
        return names;
    }
    static bool matchesSomeCall(const std::string &pattern) {
        for (const CallEntry &call : dialectCalls())
            if (fnmatch(pattern.c_str(), std::string(call.name).c_str(), 0) == 0) return true;
        return false;
    }

    const std::string &source_;
    int line_;
    std::vector<Word> words_;
    std::vector<std::string> &warnings_;
};

}  // namespace

std::vector<Rule> parseRules(std::string_view text, const std::string &source,
                             std::vector<std::string> &warnings) {
    std::vector<Rule> rules;
    std::vector<std::string> found;
    int line = 0;
    size_t at = 0;
    while (at < text.size()) {
        ++line;
        const size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view lineText = text.substr(at, end - at);
        at = end + 1;
        if (lineText.find('\0') != std::string_view::npos)
            throw FilterError(Place{source, line, static_cast<int>(lineText.find('\0')) + 1},
                              "expected text; found a NUL byte (is this a filter file?)");
        std::vector<Word> words = wordsOf(lineText);
        if (words.empty()) continue;
        rules.push_back(LineParser(source, line, std::move(words), found).parse());
    }
    warnings.insert(warnings.end(), found.begin(), found.end());
    return rules;
}

}  // namespace hdtrace::filter
