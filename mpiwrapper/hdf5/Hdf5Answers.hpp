// Hdf5Answers: what HDF5 said of an id that the layer asks about at every
// transfer (the elements a dataspace selects, a datatype's size, a transfer
// list's mode), remembered by each thread until a call that may change it.
// Asking HDF5 costs several hundred instructions (every API call sets up
// and clears its context); a remembered answer costs a few.
//
// The layer defines the calls that change these answers (hdf5_conf.py,
// OBSERVED, generated beside the traced wrappers so that a static link
// takes them together): each counts a change in its id's slot, and every
// thread's remembered answer in that slot stops matching. HDF5 never gives
// an id twice while the library runs (56 bits of counter per type), so an
// answer can only go stale by a change to its own id, or by H5close, after
// which HDF5 numbers from the start again: that one changes every slot.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <hdf5.h>

namespace hdtracempi {

template <typename Question>
class RememberedAnswers {
  public:
    // The answer for id: remembered, or ask(id) (an int64_t, negative when
    // HDF5 could not answer, which is not remembered).
    template <typename Ask>
    static int64_t answer(hid_t id, Ask ask) {
        const size_t slot = slotOf(id);
        // Read before asking: a change made while HDF5 answers makes the
        // answer stale, and counting it after this read makes it unmatched.
        const uint64_t changes = sChanges[slot].load(std::memory_order_acquire);
        Entry &entry = tEntries[slot];
        if (entry.id == id && entry.changes == changes) return entry.value;
        const int64_t value = ask(id);
        if (value >= 0) entry = Entry{id, changes, value};
        return value;
    }

    // After a call that may have changed what id answers.
    static void changed(hid_t id) { sChanges[slotOf(id)].fetch_add(1, std::memory_order_acq_rel); }

    // After H5close: ids start again from the first.
    static void allChanged() {
        for (std::atomic<uint64_t> &changes : sChanges)
            changes.fetch_add(1, std::memory_order_acq_rel);
    }

  private:
    // A transfer uses a few ids; each slot is static TLS of the library
    // (24 bytes per question and thread), which the process keeps small.
    static constexpr size_t kSlots = 8;
    struct Entry {
        hid_t id = -1;  // never a valid id
        uint64_t changes = 0;
        int64_t value = 0;
    };
    // HDF5 numbers the ids of a type one after another: consecutive
    // objects fall into consecutive slots.
    static size_t slotOf(hid_t id) { return static_cast<uint64_t>(id) % kSlots; }

    static inline std::atomic<uint64_t> sChanges[kSlots]{};
    static inline thread_local Entry tEntries[kSlots];
};

// The questions.
using SelectedElements = RememberedAnswers<struct SelectedElementsQuestion>;
using TypeSizes = RememberedAnswers<struct TypeSizesQuestion>;
using TransferModes = RememberedAnswers<struct TransferModesQuestion>;

// After H5close.
inline void everyAnswerChanged() {
    SelectedElements::allChanged();
    TypeSizes::allChanged();
    TransferModes::allChanged();
}

}  // namespace hdtracempi
