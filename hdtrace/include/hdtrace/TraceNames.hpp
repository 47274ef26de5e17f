// File names of a trace: <program>_<level1>_..._<levelN>.trc and .info.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hdtrace {

// Replaces every character outside [A-Za-z0-9.-] with '-'. The viewer drops
// other characters when it derives file names, and '_' separates the levels.
// An empty part becomes "-", so that it still occupies its level.
std::string sanitizeNamePart(std::string_view part);

// "<program>_<level1>_..._<levelN>" with every part sanitised.
std::string traceBaseName(std::string_view program, const std::vector<std::string> &levels);

}  // namespace hdtrace
