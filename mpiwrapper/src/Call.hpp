// Call: what a generated wrapper uses to record one MPI call. It takes the
// times, opens and closes the call's state in the thread's trace, and turns
// handles and ranks into the ids and world ranks of the trace. The
// machinery lives in the registries; a wrapper stays a few lines.
#pragma once

#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <mpi.h>

#include <hdtrace/Timestamp.hpp>
#include <hdtrace/TraceWriter.hpp>

#include "CallSelection.hpp"
#include "PortableValues.hpp"
#include "Runtime.hpp"
#include "ThreadContext.hpp"

namespace hdtracempi {

class Completions;

class Call {
  public:
    // Active when the calling thread is traced and not already inside the
    // wrapper's own code.
    Call() {
        ThreadContext *context = tracedThread();
        if (context && context->internalDepth == 0) {
            context_ = context;
            ++context_->internalDepth;
        }
    }
    ~Call() { finish(); }
    Call(const Call &) = delete;
    Call &operator=(const Call &) = delete;

    bool active() const { return context_ != nullptr; }

    // Opens the call's state now, before the MPI call, so that MPI calls
    // made inside it become nested states; not when the filter leaves the
    // call out (callIndex: the tag's index among the dialect's calls) or
    // MPI_Pcontrol paused writing.
    __attribute__((always_inline)) void begin(uint16_t callIndex, std::string_view tag) {
        if (!callTraced(callIndex) || gWritingPaused.load(std::memory_order_relaxed)) return;
        began_ = context_->writer->beginState(tag) == 0;
    }
    // MPI_Init and MPI_Init_thread: times taken before the trace existed.
    void begin(uint16_t callIndex, std::string_view tag, hdtrace::Timestamp start) {
        if (!callTraced(callIndex)) return;
        began_ = context_->writer->beginState(tag, start) == 0;
    }
    // Around the MPI call: calls MPI makes inside it are traced (nested).
    // Both do nothing once finish() ended the call early (MPI_Abort).
    __attribute__((always_inline)) void enterLibrary() {
        if (context_) --context_->internalDepth;
    }
    __attribute__((always_inline)) void leaveLibrary() {
        if (!context_) return;
        if (began_) {  // an unlogged call needs no time
            end_ = context_->writer->now();
            ended_ = true;
        }
        ++context_->internalDepth;
    }
    void endedAt(hdtrace::Timestamp end) {
        end_ = end;
        ended_ = true;
    }
    // Whether attributes will be written; skip gathering them otherwise.
    bool writing() const { return began_ && context_->writer->isWriting(); }

    // Ends the state (at the time the MPI call returned). Idempotent.
    __attribute__((always_inline)) void finish() {
        if (!context_) return;
        if (began_) context_->writer->endState(ended_ ? end_ : context_->writer->now());
        began_ = false;
        --context_->internalDepth;
        context_ = nullptr;
    }

    // --- Attributes and child elements.
    // Always inline, so that the name is a literal where it is copied.
    __attribute__((always_inline)) void attribute(std::string_view name, int64_t value) {
        context_->writer->attribute(name, value);
    }
    void attribute(std::string_view name, const char *text) {
        context_->writer->attribute(name, text);
    }
    // The call's attributes, named in order by names (a static table of the
    // wrapper's), their values in a tuple made in that order: all numbers
    // at once, so that the writer compares the names with the call's plan
    // once per table, not at every call; with a text among them, one by one.
    template <size_t N, class... Values>
    __attribute__((always_inline)) void attributes(const std::string_view (&names)[N],
                                                   const std::tuple<Values...> &values) {
        static_assert(sizeof...(Values) == N, "a name for each value");
        if constexpr ((std::is_integral_v<Values> && ...))
            allNumbers(names, values, std::index_sequence_for<Values...>{});
        else
            oneByOne(names, values, std::index_sequence_for<Values...>{});
    }
    void forChild(int64_t rid);
    void dataChild(int64_t offset, int64_t count, MPI_Datatype type);
    void infoChildren(MPI_Info info);  // when HDTRACE_FILE_INFO=1
    void completionChildren(const Completions &completions);

    // --- Values of attributes.
    __attribute__((always_inline)) int64_t commId(MPI_Comm comm) {
        const CommRecord *record = context_->comm(comm);
        return record ? record->id : -1;
    }
    __attribute__((always_inline)) int64_t worldRank(MPI_Comm comm, int rank) {
        const CommRecord *record = context_->comm(comm);
        return record ? record->worldRankOfPeer(rank) : portableRank(rank);
    }
    // Source and tag that matched: from the status when the call succeeded.
    __attribute__((always_inline)) int64_t matchedRank(int result, MPI_Comm comm, int requested,
                                                       const MPI_Status *status) {
        return worldRank(comm, result == MPI_SUCCESS ? status->MPI_SOURCE : requested);
    }
    int64_t matchedTag(int result, int requested, const MPI_Status *status) {
        return portableTag(result == MPI_SUCCESS ? status->MPI_TAG : requested);
    }
    __attribute__((always_inline)) int64_t typeId(MPI_Datatype type) {
        return context_->type(type).id;
    }
    __attribute__((always_inline)) int64_t dataSize(int64_t count, MPI_Datatype type) {
        return count * context_->type(type).size;
    }
    __attribute__((always_inline)) int64_t fileId(MPI_File fh) {
        const FileRecord *record = context_->file(fh);
        return record ? record->id : -1;
    }
    // The individual (or shared) file pointer, in bytes; -1 when MPI cannot say.
    int64_t individualPosition(MPI_File fh);
    int64_t sharedPosition(MPI_File fh);
    // recvcounts[rank of this process in comm]: the own block of a v-collective.
    // int counts, or MPI_Count ones in the large-count (MPI_X_c) forms.
    template <typename Count>
    int64_t ownEntry(MPI_Comm comm, const Count counts[]) {
        const CommRecord *record = context_->comm(comm);
        return record && counts && record->localRank >= 0 ? counts[record->localRank] : 0;
    }

    // --- Hooks that keep the registries up to date; they run whether or not
    // the call is written. A request made by a call left out (filter,
    // MPI_Pcontrol) is still followed, so that its completion is told apart
    // from others', but no <For> names it: the trace never issued it. It
    // is not followed at all where no written call could name it.
    int64_t requestCreated(int result, const MPI_Request *request, bool persistent) {
        if (result != MPI_SUCCESS) return -1;
        if (!began_ && !gRequestsNamed.load(std::memory_order_relaxed)) return -1;
        return context_->requests.created(request, persistent, began_);
    }
    // Before MPI_Start / MPI_Request_free: the entry (and rid) of *request.
    RequestRegistry::Entry requestEntry(const MPI_Request *request) {
        return context_->requests.find(request);
    }
    void requestStarted(int result, const RequestRegistry::Entry &entry) {
        if (result == MPI_SUCCESS) context_->requests.started(entry);
    }
    void requestFreed(const RequestRegistry::Entry &entry) { context_->requests.freed(entry); }
    RequestTable &requests() { return context_->requests; }
    int64_t commCreated(int result, const MPI_Comm *comm);
    // MPI_Comm_idup: *newComm is usable only after completion, but has the
    // groups of comm, so its record is made from comm's.
    int64_t commDuplicated(int result, MPI_Comm comm, const MPI_Comm *newComm);
    // The world ranks of group's members in group order, as "a;b;" ("" for
    // MPI_GROUP_NULL): File_get_group, Win_post, Win_start.
    std::string worldRanksOf(MPI_Group group);
    // MPI_Pcontrol: process-wide, so every thread pauses and resumes.
    void pauseWriting() { gWritingPaused.store(true, std::memory_order_relaxed); }
    void resumeWriting() { gWritingPaused.store(false, std::memory_order_relaxed); }
    void commFreed(MPI_Comm comm) { gRuntime->comms.forget(comm); }
    void typeFreed(MPI_Datatype type) { gRuntime->types.forget(type); }
    // After the program's MPI_Type_get_contents of type (Call.cpp).
    void typeContentsReturned(int result, MPI_Datatype type, const MPI_Datatype types[]);
    // After a constructor succeeded, with what its arguments say
    // of the new type (TypeArguments).
    void typeConstructed(const MPI_Datatype *newType, int count, const MPI_Datatype inputs[],
                         const TypeArguments &arguments) {
        gRuntime->types.constructed(*newType, count, inputs, arguments);
    }
    int64_t fileOpened(int result, const char *name, const MPI_File *fh);
    void fileClosed(MPI_File fh) { gRuntime->files.closed(fh); }
    int64_t fileIdOfName(const char *name) {
        return context_->declare(gRuntime->files.named(name, true));
    }
    int64_t splitBegun(int result, MPI_File fh);
    int64_t splitEnded(MPI_File fh) { return gRuntime->files.endSplit(fh); }

    // --- Matched probes (docs/format/mpi3.md, "Matched probes").
    // After MPI_Mprobe (flag 1) / MPI_Improbe: what the probe matched, with
    // a new mid; the requested source and tag and mid -1 when it matched
    // nothing. Remembered by handle for the receive.
    MessageRecord messageProbed(int result, int flag, int source, int tag, MPI_Comm comm,
                                const MPI_Message *message, const MPI_Status *status);
    // Before MPI_Mrecv / MPI_Imrecv, which consume the handle.
    MessageRecord messageTaken(const MPI_Message *message) {
        return gRuntime->messages.take(*message);
    }

    // --- One-sided communication (docs/format/mpi3.md, "One-sided communication").
    int64_t winId(MPI_Win win) {
        const WinRecord *record = context_->win(win);
        return record ? record->id : -1;
    }
    // A target rank in the window's group, as a world rank.
    int64_t targetRank(MPI_Win win, int rank) {
        const WinRecord *record = context_->win(win);
        return record ? record->worldRankOfTarget(rank) : portableRank(rank);
    }
    // After a window constructor: the new wid (its Win line written), or -1.
    int64_t winCreated(int result, const MPI_Win *win, MPI_Comm comm, int64_t size,
                       int64_t dispUnit, WinKind kind);
    void winFreed(MPI_Win win) { gRuntime->wins.forget(win); }

  private:
    template <size_t N, class... Values, size_t... Index>
    __attribute__((always_inline)) void allNumbers(const std::string_view (&names)[N],
                                                   const std::tuple<Values...> &values,
                                                   std::index_sequence<Index...>) {
        const int64_t numbers[N] = {static_cast<int64_t>(std::get<Index>(values))...};
        context_->writer->attributes(names, numbers, N);
    }
    template <size_t N, class... Values, size_t... Index>
    void oneByOne(const std::string_view (&names)[N], const std::tuple<Values...> &values,
                  std::index_sequence<Index...>) {
        (attribute(names[Index], std::get<Index>(values)), ...);
    }

    ThreadContext *context_ = nullptr;
    hdtrace::Timestamp end_;
    bool ended_ = false;
    bool began_ = false;
};

// The requests a completion call (Wait*, Test*, Startall) was given, mapped
// to rids BEFORE the call: MPI sets completed requests to MPI_REQUEST_NULL.
class Completions {
  public:
    Completions(Call &call, int count, const MPI_Request requests[]);
    ~Completions();
    Completions(const Completions &) = delete;
    Completions &operator=(const Completions &) = delete;

    // After the call; each marks what completed and updates the registry.
    // requestsAfter is the program's array after the call: on an error,
    // the non-persistent requests MPI set to MPI_REQUEST_NULL completed.
    void all(int result, bool flag,
             const MPI_Request requestsAfter[]);  // Wait, Waitall, Test, Testall
    void one(int result, int index, const MPI_Request requestsAfter[]);  // Waitany, Testany
    void some(int result, int outcount, const int indices[], const MPI_Request requestsAfter[]);
    void started(int result);  // Startall

    int count() const { return count_; }
    int64_t rid(int i) const { return items_[i].entry.rid; }
    // Its creation was written: a <For> may name it.
    bool written(int i) const { return items_[i].entry.written; }
    bool done(int i) const { return items_[i].done; }

  private:
    void complete(int i);
    void completeNulled(const MPI_Request requestsAfter[]);

    struct Item {
        RequestRegistry::Entry entry;
        bool done;
        bool unseen;  // not MPI_REQUEST_NULL, yet no traced call created it
    };
    RequestTable &table_;
    static constexpr int kInline = 16;  // no allocation for the usual small arrays
    // Raw storage: constructing kInline default Items on every completion
    // call would cost more than the lookups themselves.
    union InlineItems {
        InlineItems() {}
        Item items[kInline];
    } inline_;
    int64_t inlineRids_[kInline];
    Item *items_;
    int64_t *rids_;  // the rids matched so far, so that no rid is matched twice
    int count_;
};

// MPI_hdT_Test_nested's work: calls MPI_hdT_Test_nested(depth - 1) through
// the traced symbol while depth > 0.
int testNestedBody(int depth);

}  // namespace hdtracempi
