// HandleGeneration: a process-wide counter that changes whenever a registry
// forgets a handle (a freed communicator or window, a closed file; a freed
// type retires its record instead, TypeRegistry.hpp). A thread's
// one-entry caches check only this counter, which sits beside gTracing in
// the cache line every traced call reads anyway.
#pragma once

#include <atomic>
#include <cstdint>

namespace hdtracempi {

extern std::atomic<uint64_t> gHandleGeneration;

// Advances a registry's own generation (for the threads' hash tables) and
// the process-wide one.
inline void bumpGeneration(std::atomic<uint64_t> &registryGeneration) {
    registryGeneration.fetch_add(1, std::memory_order_acq_rel);
    gHandleGeneration.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace hdtracempi
