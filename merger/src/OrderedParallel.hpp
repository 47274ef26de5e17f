// Work on several threads whose results are taken in order: the items
// 0..count-1 are computed in batches of consecutive items by `jobs` threads,
// and one consumer takes the batches in item order, so that what it does with
// them (and every message it gives) is what a computation on one thread
// would give. The threads run at most a window of batches ahead of the
// consumer, so that memory for waiting results stays bounded. With one job,
// or one batch, no thread is started: the consumer computes each batch as
// it takes it.
//
// A batch the consumer is done with can be given back: its results, with
// the room their vectors and strings have grown, are computed into again
// for a later batch. A long run of batches then allocates for its results
// only while they still grow, not once per item on a worker thread and
// freed again on the consumer's.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hdtrace::merger {

template <class Result>
class OrderedParallel {
  public:
    // Each thread calls makeWorker() once, for a function that computes the
    // result of one item (with state of its own, e.g. a parser). The result
    // it is handed may be one given back: it sets every part of it.
    using Worker = std::function<void(size_t item, Result &result)>;

    // windowBatches: how many batches the threads may run ahead.
    OrderedParallel(size_t count, size_t batchItems, unsigned jobs, size_t windowBatches,
                    std::function<Worker()> makeWorker)
        : count_(count),
          batchItems_(batchItems),
          batches_((count + batchItems - 1) / batchItems),
          window_(std::max<size_t>(1, windowBatches)) {
        const size_t threads = std::min<size_t>(jobs, batches_.size());
        if (threads <= 1) {
            inlineWorker_ = makeWorker();
            return;
        }
        for (size_t job = 0; job < threads; ++job)
            threads_.emplace_back([this, makeWorker] { work(makeWorker()); });
    }

    ~OrderedParallel() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        room_.notify_all();
        for (std::thread &thread : threads_)
            thread.join();
    }

    OrderedParallel(const OrderedParallel &) = delete;
    OrderedParallel &operator=(const OrderedParallel &) = delete;

    size_t batchCount() const { return batches_.size(); }
    size_t firstItemOf(size_t batch) const { return batch * batchItems_; }

    // Waits for batch `index` (each taken once, in order) and returns its
    // results; rethrows what a thread threw for it.
    std::vector<Result> take(size_t index) {
        if (inlineWorker_) {
            std::vector<Result> results = takeSpare();
            computeBatch(inlineWorker_, index, results);
            return results;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return batches_[index].done; });
        Batch batch = std::move(batches_[index]);
        taken_ = index + 1;
        lock.unlock();
        room_.notify_all();
        if (batch.failure) std::rethrow_exception(batch.failure);
        return std::move(batch.results);
    }

    // The results of a batch taken before, to be computed into again.
    void giveBack(std::vector<Result> results) {
        std::lock_guard<std::mutex> lock(mutex_);
        // A batch is computed into each at a time, so more spares than
        // batches that can be under way at once would only hold memory.
        if (spares_.size() < window_ + threads_.size()) spares_.push_back(std::move(results));
    }

  private:
    struct Batch {
        bool done = false;
        std::exception_ptr failure;
        std::vector<Result> results;
    };

    void work(const Worker &compute) {
        while (true) {
            const size_t index = next_.fetch_add(1);
            if (index >= batches_.size()) return;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                room_.wait(lock, [&] { return stop_ || index < taken_ + window_; });
                if (stop_) return;
            }
            Batch batch;
            batch.results = takeSpare();
            try {
                computeBatch(compute, index, batch.results);
            } catch (...) {
                batch.failure = std::current_exception();
            }
            batch.done = true;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                batches_[index] = std::move(batch);
            }
            ready_.notify_all();
        }
    }

    std::vector<Result> takeSpare() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (spares_.empty()) return {};
        std::vector<Result> spare = std::move(spares_.back());
        spares_.pop_back();
        return spare;
    }

    void computeBatch(const Worker &compute, size_t index, std::vector<Result> &results) const {
        const size_t first = index * batchItems_;
        const size_t end = std::min(count_, first + batchItems_);
        results.resize(end - first);
        for (size_t item = first; item < end; ++item)
            compute(item, results[item - first]);
    }

    Worker inlineWorker_;  // set when no thread is started
    const size_t count_;
    const size_t batchItems_;
    std::vector<Batch> batches_;
    const size_t window_;
    std::atomic<size_t> next_{0};
    std::mutex mutex_;
    std::condition_variable ready_;
    std::condition_variable room_;
    size_t taken_ = 0;
    bool stop_ = false;
    std::vector<std::vector<Result>> spares_;  // given back, not yet computed into
    std::vector<std::thread> threads_;
};

}  // namespace hdtrace::merger
