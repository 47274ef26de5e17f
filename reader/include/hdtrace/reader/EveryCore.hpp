// Work spread over the cores this process may run on (usableCores): items
// each on its own (forEachOnEveryCore), or made on every core and then
// given their place in order (forEachOnEveryCoreInOrder).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <hdtrace/UsableCores.hpp>

namespace hdtrace::reader {

// Runs body(0) ... body(count - 1) on as many threads as there are cores
// this process may run on. Items start in order of their index. The first
// exception stops the items not yet started and is rethrown once every
// thread has finished.
template <typename Body>
void forEachOnEveryCore(size_t count, Body &&body) {
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failureLock;
    auto work = [&] {
        for (size_t index = next++; index < count; index = next++) {
            try {
                body(index);
            } catch (...) {
                std::lock_guard<std::mutex> guard(failureLock);
                if (!failure) failure = std::current_exception();
                next = count;  // stop the others early
            }
        }
    };
    const size_t workers = std::min<size_t>(count, usableCores());
    std::vector<std::thread> threads;
    for (size_t worker = 1; worker < workers; ++worker)
        threads.emplace_back(work);
    work();
    for (std::thread &thread : threads)
        thread.join();
    if (failure) std::rethrow_exception(failure);
}

// Runs produce(index) for every index on every core; then, in order of
// index and one at a time, place(index, its product), which may change the
// product (a trace's tree given its rows' place after those of the traces
// before it); then, at once and on every core again, finish(index, its
// product), which takes it and frees it. An item is placed as soon as those
// before it are, so no more than one product per core waits at any time.
// The first exception, from any step, stops the rest and is rethrown; a
// thread waiting for its turn then gives up its item.
template <typename Produce, typename Place, typename Finish>
void forEachOnEveryCoreInOrder(size_t count, Produce &&produce, Place &&place, Finish &&finish) {
    std::mutex lock;
    std::condition_variable turnChanged;
    size_t turn = 0;
    bool stopped = false;
    const auto stop = [&] {
        {
            std::lock_guard<std::mutex> guard(lock);
            stopped = true;
        }
        turnChanged.notify_all();
    };
    forEachOnEveryCore(count, [&](size_t index) {
        try {
            auto product = produce(index);
            {
                std::unique_lock<std::mutex> guard(lock);
                // Items are claimed in order of index, each by a running
                // thread, so the turn reaches every item that waits for it.
                turnChanged.wait(guard, [&] { return turn == index || stopped; });
                if (stopped) return;
            }
            place(index, product);
            {
                std::lock_guard<std::mutex> guard(lock);
                ++turn;
            }
            turnChanged.notify_all();
            finish(index, std::move(product));
        } catch (...) {
            stop();
            throw;
        }
    });
}

}  // namespace hdtrace::reader
