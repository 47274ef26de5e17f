#include "Call.hpp"

#include <new>
#include <string>
#include <vector>

#include <hdtrace/hdtracempi.h>

namespace hdtracempi {

void Call::forChild(int64_t rid) {
    hdtrace::TraceWriter &writer = *context_->writer;
    writer.beginElement("For");
    writer.attribute("rid", rid);
    writer.endElement();
}

void Call::dataChild(int64_t offset, int64_t count, MPI_Datatype type) {
    const int64_t size = dataSize(count, type);
    const int64_t tid = typeId(type);
    hdtrace::TraceWriter &writer = *context_->writer;
    writer.beginElement("Data");
    writer.attribute("offset", offset);
    writer.attribute("size", size);
    writer.attribute("count", count);
    writer.attribute("tid", tid);
    writer.endElement();
}

void Call::infoChildren(MPI_Info info) {
    if (!gRuntime->config.fileInfo || info == MPI_INFO_NULL) return;
    int keys = 0;
    if (PMPI_Info_get_nkeys(info, &keys) != MPI_SUCCESS) return;
    hdtrace::TraceWriter &writer = *context_->writer;
    std::string value;
    for (int i = 0; i < keys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1] = "";
        int valueLength = 0, found = 0;
        if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS) continue;
        PMPI_Info_get_valuelen(info, key, &valueLength, &found);
        if (!found) continue;
        value.assign(static_cast<size_t>(valueLength) + 1, '\0');
        PMPI_Info_get(info, key, valueLength, &value[0], &found);
        value.resize(static_cast<size_t>(valueLength));
        writer.beginElement("Info");
        writer.attribute("key", key);
        writer.attribute("value", std::string_view(value.c_str()));
        writer.endElement();
    }
}

void Call::completionChildren(const Completions &completions) {
    for (int i = 0; i < completions.count(); ++i)
        if (completions.done(i) && completions.written(i)) forChild(completions.rid(i));
}

int64_t Call::individualPosition(MPI_File fh) {
    MPI_Offset position = 0, bytes = 0;
    if (PMPI_File_get_position(fh, &position) != MPI_SUCCESS) return -1;
    if (PMPI_File_get_byte_offset(fh, position, &bytes) != MPI_SUCCESS) return -1;
    return bytes;
}

int64_t Call::sharedPosition(MPI_File fh) {
    MPI_Offset position = 0, bytes = 0;
    if (PMPI_File_get_position_shared(fh, &position) != MPI_SUCCESS) return -1;
    if (PMPI_File_get_byte_offset(fh, position, &bytes) != MPI_SUCCESS) return -1;
    return bytes;
}

int64_t Call::commCreated(int result, const MPI_Comm *comm) {
    if (result != MPI_SUCCESS) return -1;
    return context_->declare(gRuntime->comms.created(*comm));
}

int64_t Call::commDuplicated(int result, MPI_Comm comm, const MPI_Comm *newComm) {
    if (result != MPI_SUCCESS) return -1;
    const CommRecord *old = context_->comm(comm);
    if (!old) return -1;
    return context_->declare(gRuntime->comms.duplicated(*old, *newComm));
}

std::string Call::worldRanksOf(MPI_Group group) {
    std::string text;
    if (group == MPI_GROUP_NULL) return text;
    for (int rank : CommRegistry::worldRanksOf(group))
        text += std::to_string(rank) + ';';
    return text;
}

void Call::typeContentsReturned(int result, MPI_Datatype type, const MPI_Datatype types[]) {
    if (result != MPI_SUCCESS) return;
    // How many of types the call filled: the rest of the program's array is
    // whatever it held before.
    int integers = 0, addresses = 0, datatypes = 0, combiner = MPI_COMBINER_NAMED;
    if (PMPI_Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner) != MPI_SUCCESS)
        return;
    gRuntime->types.contentsReturned(datatypes, types);
}

int64_t Call::fileOpened(int result, const char *name, const MPI_File *fh) {
    if (result != MPI_SUCCESS) return context_->declare(gRuntime->files.named(name, false));
    return context_->declare(gRuntime->files.opened(name, *fh));
}

int64_t Call::splitBegun(int result, MPI_File fh) {
    if (result != MPI_SUCCESS) return -1;
    // As requestCreated: the end of a begin left out names no rid.
    const int64_t rid = began_ ? gRuntime->requests.newId() : -1;
    gRuntime->files.beginSplit(fh, rid);
    return rid;
}

// --- Completions

Completions::Completions(Call &call, int count, const MPI_Request requests[])
    : table_(call.requests()),
      items_(inline_.items),
      rids_(inlineRids_),
      count_(count > 0 && requests ? count : 0) {
    if (count_ > kInline) {
        items_ = new Item[static_cast<size_t>(count_)];
        rids_ = new int64_t[static_cast<size_t>(count_)];
    }
    int matched = 0;
    for (int i = 0; i < count_; ++i) {
        new (&items_[i]) Item{table_.find(&requests[i], rids_, matched), false, false};
        if (items_[i].entry.rid >= 0)
            rids_[matched++] = items_[i].entry.rid;
        else
            items_[i].unseen = requests[i] != MPI_REQUEST_NULL;
    }
}

Completions::~Completions() {
    if (items_ != inline_.items) {
        delete[] items_;
        delete[] rids_;
    }
}

void Completions::complete(int i) {
    Item &item = items_[i];
    // A request no traced call created completes without a <For>: counted,
    // once, so that the loss is visible (RequestTable::unseenCount).
    if (item.unseen) {
        item.unseen = false;
        table_.countUnseen();
    }
    // Null, unknown and inactive (persistent, not started) requests complete nothing.
    if (item.done || item.entry.rid < 0 || !item.entry.active) return;
    item.done = true;
    table_.completed(item.entry);
}

void Completions::completeNulled(const MPI_Request requestsAfter[]) {
    for (int i = 0; i < count_; ++i)
        if (!items_[i].entry.persistent && requestsAfter[i] == MPI_REQUEST_NULL) complete(i);
}

void Completions::all(int result, bool flag, const MPI_Request requestsAfter[]) {
    if (result != MPI_SUCCESS) return completeNulled(requestsAfter);
    if (!flag) return;
    for (int i = 0; i < count_; ++i)
        complete(i);
}

void Completions::one(int result, int index, const MPI_Request requestsAfter[]) {
    if (result != MPI_SUCCESS) return completeNulled(requestsAfter);
    if (index != MPI_UNDEFINED && index >= 0 && index < count_) complete(index);
}

void Completions::some(int result, int outcount, const int indices[],
                       const MPI_Request requestsAfter[]) {
    if (result != MPI_SUCCESS) return completeNulled(requestsAfter);
    if (outcount == MPI_UNDEFINED) return;
    for (int k = 0; k < outcount; ++k)
        if (indices[k] >= 0 && indices[k] < count_) complete(indices[k]);
}

void Completions::started(int result) {
    for (int i = 0; i < count_; ++i) {
        Item &item = items_[i];
        if (result != MPI_SUCCESS || item.entry.rid < 0) continue;
        item.done = true;  // listed as started
        table_.started(item.entry);
    }
}

// --- Matched probes

MessageRecord Call::messageProbed(int result, int flag, int source, int tag, MPI_Comm comm,
                                  const MPI_Message *message, const MPI_Status *status) {
    MessageRecord record;
    record.cid = commId(comm);
    if (result != MPI_SUCCESS || !flag) {  // nothing matched: what was asked for
        record.fromRank = worldRank(comm, source);
        record.fromTag = portableTag(tag);
        return record;
    }
    record.fromRank = worldRank(comm, status->MPI_SOURCE);
    record.fromTag = portableTag(status->MPI_TAG);
    MPI_Count bytes = 0;
    if (PMPI_Get_elements_x(status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes == MPI_UNDEFINED)
        bytes = 0;
    record.size = static_cast<int64_t>(bytes);
    record.mid = gRuntime->messages.probed(*message, record);
    return record;
}

// --- One-sided communication

int64_t Call::winCreated(int result, const MPI_Win *win, MPI_Comm comm, int64_t size,
                         int64_t dispUnit, WinKind kind) {
    if (result != MPI_SUCCESS) return -1;
    return context_->declare(
        gRuntime->wins.created(*win, context_->comm(comm), size, dispUnit, kind));
}

int testNestedBody(int depth) {
    return depth > 0 ? MPI_hdT_Test_nested(depth - 1) : MPI_SUCCESS;
}

}  // namespace hdtracempi
