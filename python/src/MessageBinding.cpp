#include "MessageBinding.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include <hdtrace/clocks/MessagePairs.hpp>

namespace py = pybind11;

namespace hdtrace::python {
namespace {

using Int64Array = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
using Int32Array = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

template <typename Array>
Array columnOf(const py::dict &posts, const char *side, const char *name) {
    if (!posts.contains(name)) throw py::value_error(std::string(side) + " have no column " + name);
    Array array = Array::ensure(posts[name]);
    if (!array || array.ndim() != 1)
        throw py::value_error(std::string(side) + "' column " + name + " is not one-dimensional");
    return array;
}

// The posts of one side from the columns rank, peer, tag, communicator, start_ns.
std::vector<clocks::MessagePost> postsOf(const py::dict &columns, const char *side) {
    const auto rank = columnOf<Int32Array>(columns, side, "rank");
    const auto peer = columnOf<Int32Array>(columns, side, "peer");
    const auto tag = columnOf<Int32Array>(columns, side, "tag");
    const auto communicator = columnOf<Int64Array>(columns, side, "communicator");
    const auto start = columnOf<Int64Array>(columns, side, "start_ns");
    const py::ssize_t count = rank.size();
    for (py::ssize_t size : {peer.size(), tag.size(), communicator.size(), start.size()})
        if (size != count) throw py::value_error(std::string(side) + "' columns differ in length");
    std::vector<clocks::MessagePost> posts(static_cast<size_t>(count));
    for (py::ssize_t k = 0; k < count; ++k)
        posts[static_cast<size_t>(k)] = {rank.data()[k], peer.data()[k], tag.data()[k],
                                         communicator.data()[k], start.data()[k]};
    return posts;
}

Int64Array arrayOf(const std::vector<int64_t> &values) {
    return Int64Array(static_cast<py::ssize_t>(values.size()), values.data());
}

py::dict pairPosts(const py::dict &sendColumns, const py::dict &receiveColumns) {
    const std::vector<clocks::MessagePost> sends = postsOf(sendColumns, "sends");
    const std::vector<clocks::MessagePost> receives = postsOf(receiveColumns, "receives");
    clocks::PostPairing pairing;
    {
        py::gil_scoped_release release;
        pairing = clocks::pairPosts(sends, receives);
    }
    std::vector<int64_t> send, receive;
    send.reserve(pairing.pairs.size());
    receive.reserve(pairing.pairs.size());
    for (const auto &[s, r] : pairing.pairs) {
        send.push_back(static_cast<int64_t>(s));
        receive.push_back(static_cast<int64_t>(r));
    }
    py::dict out;
    out["send"] = arrayOf(send);
    out["receive"] = arrayOf(receive);
    out["unmatched_sends"] =
        arrayOf(std::vector<int64_t>(pairing.unmatchedSends.begin(), pairing.unmatchedSends.end()));
    out["unmatched_receives"] = arrayOf(
        std::vector<int64_t>(pairing.unmatchedReceives.begin(), pairing.unmatchedReceives.end()));
    return out;
}

}  // namespace

void bindMessages(py::module_ &module) {
    module.attr("UNKNOWN_COMMUNICATOR_KEY") = clocks::unknownCommunicatorKey(0);
    module.def("pair_posts", &pairPosts, py::arg("sends"), py::arg("receives"),
               "Pairs posted sends with posted receives by MPI's rules. Each side is a dict of "
               "equal-length columns rank, peer, tag, communicator (a key: the communicator's "
               "index, or UNKNOWN_COMMUNICATOR_KEY + cid), start_ns; sends in the order they "
               "were sent, receives in the order they take their message. Returns a dict of "
               "int64 arrays: send and receive (indices of each pair, in matching order), "
               "unmatched_sends, unmatched_receives (sends and receives to or from "
               "MPI_PROC_NULL are in neither).");
}

}  // namespace hdtrace::python
