#include "TableFill.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "TableFields.hpp"

namespace py = pybind11;

namespace hdtrace::python {
namespace {

template <typename T>
const T *columnData(const py::dict &columns, const char *name, size_t rows) {
    auto array = columns[name].cast<py::array_t<T, py::array::c_style>>();
    if (static_cast<size_t>(array.size()) != rows)
        throw std::invalid_argument(std::string("column ") + name + " has the wrong length");
    return array.data();
}

// An int32 output array of the table's length, or null when none is given.
int32_t *outputColumn(const py::object &object, const char *name, size_t tableRows) {
    if (object.is_none()) return nullptr;
    if (!py::isinstance<py::array_t<int32_t>>(object))
        throw std::invalid_argument(std::string(name) + " must be an int32 array");
    auto array = py::reinterpret_borrow<py::array>(object);
    if (array.ndim() != 1 || !(array.flags() & py::array::c_style) || !array.writeable())
        throw std::invalid_argument(std::string(name) +
                                    " must be a writable one-dimensional array");
    if (static_cast<size_t>(array.shape(0)) != tableRows)
        throw std::invalid_argument(std::string(name) + " is not as long as the table");
    return static_cast<int32_t *>(array.mutable_data());
}

// table[position:position+n] = the calls of one trace, or, given rows,
// table[rows[i]] = call i (a project's calls go straight to their place in
// start order). names[code] is the text of each name code of that trace;
// rank and thread are the trace's, or, not given, each row's in columns
// (a run table of many traces).
// Given, nameCodeOut[row] = codeMap[code] (the project's code of the call's
// name), recvPeerOut[row] and recvTagOut[row] are written in the same pass.
// The rows are written without the GIL: the traces of a project are filled
// on every core at once, each into its own rows.
void fillTable(py::array table, size_t position, const py::dict &columns,
               std::optional<int32_t> rank, std::optional<int32_t> thread,
               const std::vector<std::string> &names, py::object rowsObject,
               py::object nameCodeObject, std::optional<std::vector<int32_t>> codeMap,
               py::object recvPeerObject, py::object recvTagObject) {
    const py::dict fields = tableFields(table.dtype());
    const TableField rankField = tableField(fields, "rank", "i", 4),
                     threadField = tableField(fields, "thread", "i", 4);
    const TableField nameField = tableField(fields, "name", "U", 0);
    const TableField start = tableField(fields, "start", "f", 8),
                     end = tableField(fields, "end", "f", 8),
                     duration = tableField(fields, "duration", "f", 8);
    const TableField size = tableField(fields, "size", "i", 8),
                     offset = tableField(fields, "offset", "i", 8),
                     rid = tableField(fields, "rid", "i", 8);
    const TableField peer = tableField(fields, "peer", "i", 4),
                     tag = tableField(fields, "tag", "i", 4),
                     cid = tableField(fields, "cid", "i", 4),
                     fid = tableField(fields, "fid", "i", 4);
    const TableField startNs = tableField(fields, "start_ns", "i", 8),
                     endNs = tableField(fields, "end_ns", "i", 8);

    const size_t rows = py::len(columns["name_code"]);
    const size_t tableRows = table.ndim() == 1 ? static_cast<size_t>(table.shape(0)) : 0;
    const int64_t *destination = nullptr;
    py::array_t<int64_t, py::array::c_style> destinationArray;
    if (!rowsObject.is_none()) {
        destinationArray = rowsObject.cast<py::array_t<int64_t, py::array::c_style>>();
        if (static_cast<size_t>(destinationArray.size()) != rows)
            throw std::invalid_argument("rows has the wrong length");
        destination = destinationArray.data();
        for (size_t i = 0; i < rows; ++i)
            if (destination[i] < 0 || static_cast<size_t>(destination[i]) >= tableRows)
                throw std::invalid_argument("a row beyond the table");
    } else if (table.ndim() != 1 || position + rows > tableRows) {
        throw std::invalid_argument("the table is too small for these rows");
    }
    const int32_t *codes = columnData<int32_t>(columns, "name_code", rows);
    const int64_t *starts = columnData<int64_t>(columns, "start_ns", rows);
    const int64_t *ends = columnData<int64_t>(columns, "end_ns", rows);
    const int64_t *sizes = columnData<int64_t>(columns, "size", rows);
    const int64_t *offsets = columnData<int64_t>(columns, "offset", rows);
    const int64_t *rids = columnData<int64_t>(columns, "rid", rows);
    const int32_t *peers = columnData<int32_t>(columns, "peer", rows);
    const int32_t *tags = columnData<int32_t>(columns, "tag", rows);
    const int32_t *cids = columnData<int32_t>(columns, "cid", rows);
    const int32_t *fids = columnData<int32_t>(columns, "fid", rows);
    const int32_t *ranks = rank ? nullptr : columnData<int32_t>(columns, "rank", rows);
    const int32_t *threads = thread ? nullptr : columnData<int32_t>(columns, "thread", rows);
    int32_t *nameCodeOut = outputColumn(nameCodeObject, "name_code_out", tableRows);
    int32_t *recvPeerOut = outputColumn(recvPeerObject, "recv_peer_out", tableRows);
    int32_t *recvTagOut = outputColumn(recvTagObject, "recv_tag_out", tableRows);
    const int32_t *recvPeers =
        recvPeerOut ? columnData<int32_t>(columns, "recv_peer", rows) : nullptr;
    const int32_t *recvTags = recvTagOut ? columnData<int32_t>(columns, "recv_tag", rows) : nullptr;
    if (nameCodeOut && (!codeMap || codeMap->size() != names.size()))
        throw std::invalid_argument("name_code_out needs a code_map of one code per name");

    // Each name as the UCS-4 text of the fixed-width "U" column (names are ASCII tags).
    const size_t width = nameField.size / 4;
    std::vector<std::vector<uint32_t>> encoded;
    for (const std::string &name : names) {
        if (name.size() > width)
            throw std::invalid_argument("name " + name + " is wider than the column");
        std::vector<uint32_t> text(width, 0);
        for (size_t i = 0; i < name.size(); ++i)
            text[i] = static_cast<unsigned char>(name[i]);
        encoded.push_back(std::move(text));
    }

    for (size_t i = 0; i < rows; ++i)
        if (codes[i] < 0 || static_cast<size_t>(codes[i]) >= encoded.size())
            throw std::invalid_argument("name code out of range");
    char *data = static_cast<char *>(table.mutable_data());
    const size_t itemSize = static_cast<size_t>(table.itemsize());
    py::gil_scoped_release release;
    const auto writeRow = [&](char *row, size_t i) {
        std::memcpy(row + nameField.offset, encoded[static_cast<size_t>(codes[i])].data(),
                    nameField.size);
        putField(row, rankField, ranks ? ranks[i] : *rank);
        putField(row, threadField, threads ? threads[i] : *thread);
        putField(row, start, static_cast<double>(starts[i]) / 1e9);
        putField(row, end, static_cast<double>(ends[i]) / 1e9);
        putField(row, duration, static_cast<double>(ends[i] - starts[i]) / 1e9);
        putField(row, size, sizes[i]);
        putField(row, offset, offsets[i]);
        putField(row, rid, rids[i]);
        putField(row, peer, peers[i]);
        putField(row, tag, tags[i]);
        putField(row, cid, cids[i]);
        putField(row, fid, fids[i]);
        putField(row, startNs, starts[i]);
        putField(row, endNs, ends[i]);
    };
    const auto writeExtras = [&](size_t at, size_t i) {
        if (nameCodeOut) nameCodeOut[at] = (*codeMap)[static_cast<size_t>(codes[i])];
        if (recvPeerOut) recvPeerOut[at] = recvPeers[i];
        if (recvTagOut) recvTagOut[at] = recvTags[i];
    };
    for (size_t i = 0; i < rows; ++i) {
        const size_t at = destination ? static_cast<size_t>(destination[i]) : position + i;
        writeRow(data + at * itemSize, i);
        writeExtras(at, i);
    }
}

}  // namespace

void bindTableFill(py::module_ &module) {
    module.def("fill_table", &fillTable, py::arg("table"), py::arg("position"), py::arg("columns"),
               py::arg("rank"), py::arg("thread"), py::arg("names"), py::arg("rows") = py::none(),
               py::arg("name_code_out") = py::none(), py::arg("code_map") = py::none(),
               py::arg("recv_peer_out") = py::none(), py::arg("recv_tag_out") = py::none(),
               "Writes the rows of one trace (read_columns) into the structured table, "
               "with rank and thread (None: each row's, from the columns' rank and thread), "
               "at position onwards or at the given rows, and, where given, each row's "
               "code_map[name code], recv_peer and recv_tag into int32 arrays of the table's "
               "length at the same rows; releases the GIL while writing.");
}

}  // namespace hdtrace::python
