#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/reader/DecimalNumber.hpp>
#include <hdtrace/reader/Project.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceForm.hpp>

#include "SaxFileParser.hpp"

namespace hdtrace::reader {
namespace {

enum class Section { None, Description, FileList, Topology, Communicators, Datatypes, Other };

constexpr std::string_view kGiveTheProject =
    "give the run's project (.proj), which hdtrace merge or project-merger writes from the run's "
    ".info files";

// A file that is no XML at all where a project goes (a compact trace, a
// rank's .info file): said as such, where the XML parser would say only
// that the document is empty.
void refuseWhatIsNoXml(const std::string &path) {
    const std::optional<std::string> head = fileHead(path, 64);
    if (!head) return;  // the parser says why
    if (traceFormOfHead(*head) == TraceForm::Compact)
        throw ReadError(path, 1, 1,
                        "a compact trace, not a project: " + std::string(kGiveTheProject));
    std::string_view start(*head);
    if (start.substr(0, 3) == "\xEF\xBB\xBF") start.remove_prefix(3);  // a UTF-8 byte order mark
    const size_t first = start.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        if (start.empty()) throw ReadError(path, 1, 1, "an empty file, not a project");
        return;
    }
    if (start[first] == '<') return;
    std::string shown;
    for (size_t at = first; at < start.size() && shown.size() < 24; ++at) {
        const char byte = start[at];
        if (byte == '\n' || byte == '\r') break;
        shown += byte >= 0x20 && byte < 0x7f ? byte : '?';
    }
    std::string problem =
        "not an HDTrace project: a project is XML, and this file begins with \"" + shown + "\"";
    if (hasSuffix(path, kInfoSuffix))
        problem +=
            " (a rank's .info file: hdtrace merge or project-merger makes the project "
            "from the run's .info files)";
    throw ReadError(path, 1, 1, problem);
}

// Builds a Project from the SAX events of a .proj. The element path is kept
// as a stack of names; each section interprets its own elements.
class ProjectHandler : public SaxHandler {
  public:
    explicit ProjectHandler(Project &project) : project_(project) {}
    void setParser(SaxFileParser *parser) { parser_ = parser; }

    void startElement(std::string_view name, const AttributeList &attributes) override;
    void endElement(std::string_view name) override;
    void characters(std::string_view text) override {
        if (collectText_) text_.append(text);
    }

  private:
    std::optional<int64_t> integerAttribute(const AttributeList &attributes, std::string_view name,
                                            std::string_view element);
    std::string textAttribute(const AttributeList &attributes, std::string_view name) {
        std::string_view value;
        return attributes.find(name, &value) ? std::string(value) : std::string();
    }
    void startTopology(std::string_view name, const AttributeList &attributes);
    void startFileList(std::string_view name, const AttributeList &attributes);
    void startText() {
        collectText_ = true;
        textDepth_ = path_.size();
        text_.clear();
    }
    // Whether the open element is inside the <File> of a <FileList>.
    bool insideFile() const { return path_.size() >= 4 && path_[2] == "File"; }
    void startDatatypes(std::string_view name, const AttributeList &attributes);

    Project &project_;
    SaxFileParser *parser_ = nullptr;
    std::vector<std::string> path_;
    Section section_ = Section::None;
    bool collectText_ = false;
    size_t textDepth_ = 0;  // the depth of the element whose text is collected
    std::string text_;
    // Topology: the labels of the open nodes, and whether each has a child node.
    std::vector<std::string> labels_;
    std::vector<bool> nodeHasChild_;
    // Datatypes: the type elements under construction (type, then its children).
    std::vector<DatatypeElement> typeStack_;
};

std::optional<int64_t> ProjectHandler::integerAttribute(const AttributeList &attributes,
                                                        std::string_view name,
                                                        std::string_view element) {
    std::string_view value;
    if (!attributes.find(name, &value)) {
        parser_->fail("<" + std::string(element) + "> has no " + std::string(name) + "= attribute");
        return std::nullopt;
    }
    auto number = parseInteger(value);
    if (!number) {
        parser_->fail(
            "<" + std::string(element) + "> " + std::string(name) + "='" + std::string(value) +
            "' " + (isOutOfRangeInteger(value) ? "does not fit in 64 bits" : "is not an integer"));
    }
    return number;
}

void ProjectHandler::startElement(std::string_view name, const AttributeList &attributes) {
    path_.emplace_back(name);
    size_t depth = path_.size();
    if (depth == 1) {
        if (name != "Application") {
            parser_->fail("the root element is <" + std::string(name) +
                          ">, but a project's root is <Application>" +
                          (name == "Program"
                               ? " (a trace, not a project: " + std::string(kGiveTheProject) + ")"
                               : std::string()));
            return;
        }
        project_.name = textAttribute(attributes, "name");
        return;
    }
    if (depth == 2) {
        if (name == "Description")
            section_ = Section::Description;
        else if (name == "FileList")
            section_ = Section::FileList;
        else if (name == "Topology")
            section_ = Section::Topology;
        else if (name == "CommunicatorList")
            section_ = Section::Communicators;
        else if (name == "Datatypes")
            section_ = Section::Datatypes;
        else
            section_ = Section::Other;  // later additions are ignored
        if (section_ == Section::Description) startText();
        return;
    }
    switch (section_) {
        case Section::Description:
            parser_->fail("<" + std::string(name) +
                          "> inside <Description>, which holds text only");
            break;
        case Section::FileList:
            startFileList(name, attributes);
            break;
        case Section::Topology:
            startTopology(name, attributes);
            break;
        case Section::Communicators:
            if (name == "Communicator" && depth == 3) {
                project_.communicators.push_back(
                    Communicator{textAttribute(attributes, "name"), {}});
            } else if (name == "Rank" && depth == 4) {
                if (path_[2] != "Communicator") {
                    parser_->fail("<Rank> inside <" + path_[2] +
                                  ">, but ranks belong in a <Communicator>");
                    break;
                }
                auto global = integerAttribute(attributes, "global", name);
                auto local = global ? integerAttribute(attributes, "local", name) : std::nullopt;
                auto cid = local ? integerAttribute(attributes, "cid", name) : std::nullopt;
                if (cid)
                    project_.communicators.back().members.push_back(
                        {*global, *local, *cid, parser_->line()});
            }
            break;
        case Section::Datatypes:
            startDatatypes(name, attributes);
            break;
        default:
            break;
    }
}

void ProjectHandler::startFileList(std::string_view name, const AttributeList &attributes) {
    if (name == "File" && path_.size() == 3) {
        project_.files.push_back(ProjectFile{textAttribute(attributes, "name"), {}, {}, {}});
        return;
    }
    bool fileValue = name == "InitialSize" || name == "ChunkSize" || name == "Distribution";
    if (!fileValue) return;  // later additions are ignored
    if (!insideFile()) {
        parser_->fail("<" + std::string(name) + "> outside a <File>");
        return;
    }
    if (name != "Distribution") {
        startText();
        return;
    }
    std::string_view value;
    if (attributes.find("implementation", &value)) {
        project_.distributionStyle = DistributionStyle::Implementation;
        project_.files.back().distribution = std::string(value);
    } else if (attributes.find("class", &value)) {
        if (project_.distributionStyle == DistributionStyle::Unknown)
            project_.distributionStyle = DistributionStyle::Class;
        project_.files.back().distribution = std::string(value);
    }
}

void ProjectHandler::startTopology(std::string_view name, const AttributeList &attributes) {
    if (name == "Level") {
        std::string level = textAttribute(attributes, "type");
        if (level.empty()) level = textAttribute(attributes, "name");  // the older layout
        project_.levels.push_back(level);
        return;
    }
    if (name != "Node" && name != "Label") return;
    std::string_view label;
    if (!attributes.find(name == "Node" ? "name" : "value", &label)) {
        parser_->fail("<" + std::string(name) + "> in <Topology> has no " +
                      (name == "Node" ? "name=" : "value=") + " attribute");
        return;
    }
    if (!nodeHasChild_.empty()) nodeHasChild_.back() = true;
    labels_.emplace_back(label);
    nodeHasChild_.push_back(false);
}

void ProjectHandler::startDatatypes(std::string_view name, const AttributeList &attributes) {
    size_t depth = path_.size();
    if (depth == 3) {
        if (name == "Rank") {
            project_.datatypes.push_back(RankDatatypes{textAttribute(attributes, "name"),
                                                       textAttribute(attributes, "thread"),
                                                       {},
                                                       parser_->line()});
        }
        return;
    }
    if (path_[2] != "Rank") {
        parser_->fail("<" + std::string(name) + "> inside <" + path_[2] +
                      ">, but datatypes belong in a <Rank>");
        return;
    }
    DatatypeElement element;
    element.combiner = std::string(name);
    element.line = parser_->line();
    for (int index = 0; index < attributes.size(); ++index) {
        element.attributes.push_back(
            Attribute{std::string(attributes.name(index)), std::string(attributes.value(index))});
    }
    typeStack_.push_back(std::move(element));
}

void ProjectHandler::endElement(std::string_view name) {
    size_t depth = path_.size();
    path_.pop_back();
    if (collectText_ && depth == textDepth_) {
        collectText_ = false;
        if (name == "Description") {
            project_.description = text_;
        } else if (name == "ChunkSize") {
            project_.files.back().chunkSize = text_;
        } else {
            std::string trimmed = text_;
            trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n"));
            trimmed.erase(trimmed.find_last_not_of(" \t\r\n") + 1);
            auto size = parseInteger(trimmed);
            if (!size) {
                parser_->fail("<InitialSize> '" + trimmed + "' " +
                              (isOutOfRangeInteger(trimmed) ? "does not fit in 64 bits"
                                                            : "is not an integer"));
                return;
            }
            project_.files.back().initialSize = size;
        }
    }
    if (depth == 2) {
        section_ = Section::None;
        return;
    }
    if (section_ == Section::Topology && (name == "Node" || name == "Label") && !labels_.empty()) {
        if (!nodeHasChild_.back()) {
            std::string stem = project_.path;
            std::string directory;
            if (size_t slash = stem.rfind('/'); slash != std::string::npos) {
                directory = stem.substr(0, slash + 1);
                stem = stem.substr(slash + 1);
            }
            if (size_t dot = stem.rfind('.'); dot != std::string::npos) stem.resize(dot);
            project_.leaves.push_back(
                TopologyLeaf{labels_,
                             existingTracePath(directory + traceBaseName(stem, labels_) +
                                               std::string(kXmlTraceSuffix)),
                             parser_->line()});
        }
        labels_.pop_back();
        nodeHasChild_.pop_back();
    }
    if (section_ == Section::Datatypes && depth >= 4 && !typeStack_.empty()) {
        DatatypeElement element = std::move(typeStack_.back());
        typeStack_.pop_back();
        if (typeStack_.empty())
            project_.datatypes.back().types.push_back(std::move(element));
        else
            typeStack_.back().children.push_back(std::move(element));
    }
}

}  // namespace

Project readProject(const std::string &path) {
    refuseWhatIsNoXml(path);
    Project project;
    project.path = path;
    ProjectHandler handler(project);
    SaxFileParser parser(path, handler, 64 * 1024);
    handler.setParser(&parser);
    parser.parseAll();
    if (project.name.empty() && project.leaves.empty())
        throw ReadError(path, 0, 0,
                        "not an HDTrace project: no <Application name=...> and no topology");
    return project;
}

}  // namespace hdtrace::reader
