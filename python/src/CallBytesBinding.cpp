#include "CallBytesBinding.hpp"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <pybind11/stl.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/EveryCore.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceReader.hpp>

namespace py = pybind11;
using hdtrace::reader::Event;
using hdtrace::reader::ReadError;
using hdtrace::reader::TraceOptions;
using hdtrace::reader::TraceReader;

namespace hdtrace::python {
namespace {

struct Sum {
    int64_t bytes = 0;
    int64_t calls = 0;
};

class CallBytes {
  public:
    CallBytes(const std::string &path, const std::vector<std::string> &reads,
              const std::vector<std::string> &writes,
              std::unordered_map<std::string, std::string> bytesAttribute)
        : path_(path), bytesAttribute_(std::move(bytesAttribute)) {
        for (const std::string &name : reads)
            kind_[name] = 0;
        for (const std::string &name : writes)
            kind_[name] = 1;
    }

    // The event and every call nested in it, at any depth.
    void add(const Event &event) {
        const auto found = kind_.find(event.name);
        if (found != kind_.end() && event.hasStart) {
            Sum &sum = sums_[found->second];
            sum.bytes += size(event);
            sum.calls += 1;
        }
        for (const Event &child : event.children)
            add(child);
    }

    const Sum &reads() const { return sums_[0]; }
    const Sum &writes() const { return sums_[1]; }

  private:
    // The bytes in the call's bytes attribute (the caller names it, from the
    // meanings of the call's layer); 0 where the call has none or failed
    // (negative).
    int64_t size(const Event &event) const {
        const auto attribute = bytesAttribute_.find(event.name);
        if (attribute == bytesAttribute_.end()) return 0;
        const std::string *text = event.attribute(attribute->second);
        if (text == nullptr) return 0;
        int64_t value = 0;
        const char *end = text->data() + text->size();
        const auto [stop, error] = std::from_chars(text->data(), end, value);
        if (error != std::errc() || stop != end)
            throw ReadError(path_, event.line, 0,
                            "<" + event.name + "> " + attribute->second + "='" + *text +
                                "' is not a whole number");
        return value > 0 ? value : 0;
    }

    std::string path_;
    std::unordered_map<std::string, int> kind_;                    // 0: a read, 1: a write
    std::unordered_map<std::string, std::string> bytesAttribute_;  // by call name
    Sum sums_[2];
};

py::dict sumCallBytes(const std::string &path, std::vector<std::string> names,
                      const std::vector<std::string> &reads, const std::vector<std::string> &writes,
                      std::unordered_map<std::string, std::string> bytesAttribute, bool partial) {
    CallBytes sums(path, reads, writes, std::move(bytesAttribute));
    std::optional<std::string> damage;
    {
        py::gil_scoped_release release;
        TraceOptions options;
        options.filter.names = std::move(names);
        options.partial = partial;
        TraceReader reader(path, options);
        Event event;
        while (reader.next(event))
            sums.add(event);
        damage = reader.damage();
    }
    py::dict out;
    out["read"] = py::make_tuple(sums.reads().bytes, sums.reads().calls);
    out["write"] = py::make_tuple(sums.writes().bytes, sums.writes().calls);
    out["damage"] = damage;
    return out;
}

// What sumCallSizes gives per trace: for the calls that read (0) and
// write (1), their bytes and their number.
struct CallSizeSums {
    int64_t bytes[2] = {0, 0};
    int64_t calls[2] = {0, 0};
    bool unsized = false;  // a call summed had no size, or one not a number
    std::optional<std::string> damage;
};

// The sizes of the calls kindOf names, summed per trace from each trace's
// call tree (names, depths and sizes only), read on every core: for runs
// of many traces, whose trees read one by one from Python cost more in
// Python's work per trace than in reading.
py::list sumCallSizes(const std::vector<std::string> &paths, bool partial,
                      const std::unordered_map<std::string, int> &kindOf) {
    for (const auto &[name, kind] : kindOf)
        if (kind != 0 && kind != 1)
            throw py::value_error("sum_call_sizes: the kind of " + name + " is " +
                                  std::to_string(kind) + ", not 0 (read) or 1 (write)");
    std::vector<CallSizeSums> sums(paths.size());
    {
        py::gil_scoped_release release;
        reader::forEachOnEveryCore(paths.size(), [&](size_t index) {
            reader::TraceOptions options;
            options.partial = partial;
            reader::CallTreeResult result =
                reader::readCallTree(paths[index], options, reader::TreeColumns::NamesDepthsSizes);
            const reader::CallTree &tree = result.tree;
            std::vector<int8_t> kinds(tree.names.size(), -1);
            for (size_t code = 0; code < tree.names.size(); ++code) {
                const auto found = kindOf.find(tree.names[code]);
                if (found != kindOf.end()) kinds[code] = static_cast<int8_t>(found->second);
            }
            CallSizeSums &trace = sums[index];
            for (size_t row = 0; row < tree.rows(); ++row) {
                const int8_t kind = kinds[static_cast<size_t>(tree.nameCode[row])];
                if (kind < 0) continue;
                trace.unsized |= tree.size[row] < 0;
                trace.bytes[kind] += tree.size[row];
                trace.calls[kind] += 1;
            }
            trace.damage = std::move(result.damage);
        });
    }
    py::list out;
    for (const CallSizeSums &trace : sums) {
        py::dict entry;
        entry["read"] = py::make_tuple(trace.bytes[0], trace.calls[0]);
        entry["write"] = py::make_tuple(trace.bytes[1], trace.calls[1]);
        entry["unsized"] = trace.unsized;
        entry["damage"] = trace.damage;
        out.append(std::move(entry));
    }
    return out;
}

}  // namespace

void bindCallBytes(py::module_ &module) {
    module.def("sum_call_bytes", &sumCallBytes, py::arg("path"), py::arg("names"), py::arg("reads"),
               py::arg("writes"), py::arg("bytes_attribute"), py::arg("partial") = false,
               "Sums the bytes (the attribute bytes_attribute names for each call; negative as "
               "0) and the number of the calls named in reads and in writes, top-level and inside "
               "<Nested> blocks at any depth, of the "
               "top-level calls the names filter keeps (empty: all): {'read': (bytes, calls), "
               "'write': (bytes, calls), 'damage': text or None}.");
    module.def("sum_call_sizes", &sumCallSizes, py::arg("paths"), py::arg("partial"),
               py::arg("kind_of"),
               "For each trace of paths, read on every core: the bytes (read_call_tree's size, "
               "sizes_only) and the number of the calls kind_of names, at every depth, those "
               "that read (kind 0) and those that write (1) apart: a list of {'read': (bytes, "
               "calls), 'write': (bytes, calls), 'unsized': whether a call summed had a "
               "negative size (none, or not a number: its bytes are then not to be used), "
               "'damage': text or None}.");
}

}  // namespace hdtrace::python
