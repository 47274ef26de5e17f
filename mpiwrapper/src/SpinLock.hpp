// SpinLock: a lock for sections of a few hundred instructions that one
// thread at a time enters nearly always (the type registry of a process whose
// MPI calls mostly come from one thread). Taking and dropping it costs one
// atomic exchange and one store, where a pthread mutex costs two atomic
// operations and two calls into the C library. A thread that finds it
// taken spins briefly, then yields its CPU, so that a holder descheduled on
// an oversubscribed node gets to run. Meets BasicLockable (std::lock_guard).
#pragma once

#include <atomic>

namespace hdtracempi {

class SpinLock {
  public:
    void lock() {
        if (!locked_.exchange(true, std::memory_order_acquire)) return;
        lockContended();
    }
    void unlock() { locked_.store(false, std::memory_order_release); }

  private:
    void lockContended();
    std::atomic<bool> locked_{false};
};

}  // namespace hdtracempi
