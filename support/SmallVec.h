// SmallVec: a vector of trivially copyable elements that holds up to N of them inline and
// goes to the heap only beyond that. The search builds ~1.2 M states in a long run and each
// computes dozens of boxes (one Interval64 per dimension, rarely more than six): as
// std::vectors they were most of its ~54 allocations per state, and glibc's malloc and free
// half of the making thread's time (session 44, bilateral_guided_upsampling).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>

namespace sextant {

template <typename T, size_t N> class SmallVec {
    // Plain data only (moved with memcpy): std::pair<int, int> qualifies, though its
    // assignment operator keeps it from being trivially copyable.
    static_assert(std::is_trivially_copy_constructible<T>::value &&
                      std::is_trivially_destructible<T>::value,
                  "SmallVec holds plain data only");

public:
    using value_type = T;
    using size_type = size_t;
    using iterator = T *;
    using const_iterator = const T *;
    using reference = T &;
    using const_reference = const T &;

    SmallVec() = default;
    explicit SmallVec(size_t n) { resize(n); }
    SmallVec(size_t n, const T &v) { assign(n, v); }
    SmallVec(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
    template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
    SmallVec(It first, It last) {
        assign(first, last);
    }
    SmallVec(const SmallVec &o) { assign(o.begin(), o.end()); }
    SmallVec(SmallVec &&o) noexcept { take(o); }
    SmallVec &operator=(const SmallVec &o) {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    SmallVec &operator=(SmallVec &&o) noexcept {
        if (this != &o) {
            free_heap();
            take(o);
        }
        return *this;
    }
    SmallVec &operator=(std::initializer_list<T> init) {
        assign(init.begin(), init.end());
        return *this;
    }
    ~SmallVec() { free_heap(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return cap_; }
    /** Bytes held on the heap (0 while the elements fit inline). */
    size_t heap_bytes() const { return on_heap() ? cap_ * sizeof(T) : 0; }
    T *data() { return data_; }
    const T *data() const { return data_; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }
    T &front() { return data_[0]; }
    const T &front() const { return data_[0]; }
    T &back() { return data_[size_ - 1]; }
    const T &back() const { return data_[size_ - 1]; }
    T *begin() { return data_; }
    T *end() { return data_ + size_; }
    const T *begin() const { return data_; }
    const T *end() const { return data_ + size_; }
    std::reverse_iterator<T *> rbegin() { return std::reverse_iterator<T *>(end()); }
    std::reverse_iterator<T *> rend() { return std::reverse_iterator<T *>(begin()); }
    std::reverse_iterator<const T *> rbegin() const {
        return std::reverse_iterator<const T *>(end());
    }
    std::reverse_iterator<const T *> rend() const {
        return std::reverse_iterator<const T *>(begin());
    }

    void reserve(size_t n) {
        if (n <= cap_) return;
        size_t c = std::max(n, cap_ * 2);
        T *p = static_cast<T *>(std::malloc(c * sizeof(T)));
        if (!p) throw std::bad_alloc();
        if (size_) std::memcpy(static_cast<void *>(p), data_, size_ * sizeof(T));
        free_heap();
        data_ = p;
        cap_ = c;
    }
    void clear() { size_ = 0; }
    void resize(size_t n) { resize(n, T()); }
    void resize(size_t n, const T &v) {
        reserve(n);
        for (size_t i = size_; i < n; i++)
            data_[i] = v;
        size_ = n;
    }
    void assign(size_t n, const T &v) {
        size_ = 0;
        resize(n, v);
    }
    template <typename It> void assign(It first, It last) {
        const size_t n = size_t(std::distance(first, last));
        size_ = 0;
        reserve(n);
        std::copy(first, last, data_);
        size_ = n;
    }
    void push_back(const T &v) {
        if (size_ == cap_) {
            const T copy = v; // v may be an element of this vector
            reserve(size_ + 1);
            data_[size_++] = copy;
            return;
        }
        data_[size_++] = v;
    }
    template <typename... A> T &emplace_back(A &&...a) {
        push_back(T{std::forward<A>(a)...});
        return back();
    }
    void pop_back() { size_--; }
    T *insert(const T *pos, const T &v) {
        const size_t at = size_t(pos - data_);
        const T copy = v;
        reserve(size_ + 1);
        std::memmove(static_cast<void *>(data_ + at + 1), data_ + at, (size_ - at) * sizeof(T));
        data_[at] = copy;
        size_++;
        return data_ + at;
    }
    template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
    T *insert(const T *pos, It first, It last) {
        const size_t at = size_t(pos - data_);
        const size_t n = size_t(std::distance(first, last));
        reserve(size_ + n); // [first, last) is not this vector's own
        std::memmove(static_cast<void *>(data_ + at + n), data_ + at, (size_ - at) * sizeof(T));
        std::copy(first, last, data_ + at);
        size_ += n;
        return data_ + at;
    }
    T *erase(const T *pos) { return erase(pos, pos + 1); }
    T *erase(const T *first, const T *last) {
        const size_t a = size_t(first - data_), b = size_t(last - data_);
        std::memmove(static_cast<void *>(data_ + a), data_ + b, (size_ - b) * sizeof(T));
        size_ -= b - a;
        return data_ + a;
    }

    bool operator==(const SmallVec &o) const {
        return size_ == o.size_ && std::equal(begin(), end(), o.begin());
    }
    bool operator!=(const SmallVec &o) const { return !(*this == o); }

private:
    bool on_heap() const { return data_ != inline_; }
    void free_heap() {
        if (on_heap()) std::free(data_);
        data_ = inline_;
        cap_ = N;
    }
    /** Moves o's elements here (this holds no heap block); leaves o empty and inline. */
    void take(SmallVec &o) {
        if (o.on_heap()) {
            data_ = o.data_;
            cap_ = o.cap_;
            o.data_ = o.inline_;
            o.cap_ = N;
        } else {
            data_ = inline_;
            cap_ = N;
            std::memcpy(static_cast<void *>(inline_), o.inline_, o.size_ * sizeof(T));
        }
        size_ = o.size_;
        o.size_ = 0;
    }

    T inline_[N];
    T *data_ = inline_;
    size_t size_ = 0;
    size_t cap_ = N;
};

} // namespace sextant
