// A read-only view of consecutive elements held elsewhere (C++17 has no
// std::span): a rank's stretch of the run's records, an interned map.
#pragma once

#include <cstddef>

namespace hdtrace::merger {

template <class T>
class Span {
  public:
    Span() = default;
    Span(const T *data, size_t size) : data_(data), size_(size) {}
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T &operator[](size_t index) const { return data_[index]; }
    const T &front() const { return data_[0]; }

  private:
    const T *data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace hdtrace::merger
