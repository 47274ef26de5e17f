// The grammar of filter files (docs/user/filters.md): one rule a line,
// words separated by blanks, '#' to the end of the line a comment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/filter/TraceFilter.hpp>

namespace hdtrace::filter {

// The rules of text, in order. Throws FilterError at the first line that is
// no rule; patterns that match nothing add a line to warnings.
std::vector<Rule> parseRules(std::string_view text, const std::string &source,
                             std::vector<std::string> &warnings);

}  // namespace hdtrace::filter
