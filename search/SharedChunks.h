// SharedChunks: a fixed-length array whose elements live in shared chunks, copied on write.
// Every search state copies its parent's decisions and loop nests (one entry per Func) and
// changes one Func's: a copy shares every chunk (one pointer and one atomic count per chunk
// instead of one per Func, and one small allocation instead of a large one), and a write copies
// the one chunk it lands in if another array shares it. The chunk pointers of arrays of up to
// kInlineChunks chunks live in the array itself, so a copy allocates nothing.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace sextant {

template <typename T, size_t kChunk = 8, size_t kInlineChunks = 12> class SharedChunks {
    using Chunk = std::array<T, kChunk>;
    using ChunkPtr = std::shared_ptr<Chunk>;
    /** The chunk pointers: the first kInlineChunks inline (null ones cost a copy nothing),
     * the rest on the heap. */
    class ChunkPtrs {
    public:
        size_t size() const { return n_; }
        const ChunkPtr &operator[](size_t c) const {
            return c < kInlineChunks ? inline_[c] : more_[c - kInlineChunks];
        }
        ChunkPtr &operator[](size_t c) {
            return c < kInlineChunks ? inline_[c] : more_[c - kInlineChunks];
        }
        void resize(size_t n) {
            for (size_t c = n; c < std::min(n_, kInlineChunks); c++)
                inline_[c].reset();
            more_.resize(n > kInlineChunks ? n - kInlineChunks : 0);
            n_ = n;
        }

    private:
        std::array<ChunkPtr, kInlineChunks> inline_;
        std::vector<ChunkPtr> more_;
        size_t n_ = 0;
    };

public:
    SharedChunks() = default;
    explicit SharedChunks(size_t n) { resize(n); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T &operator[](size_t i) const { return (*chunks_[i / kChunk])[i % kChunk]; }
    /** The element to write: valid until this array is copied (take it, write, then copy). */
    T &mut(size_t i) { return own(i / kChunk)[i % kChunk]; }
    void set(size_t i, T v) { mut(i) = std::move(v); }
    /** Grows with default elements or drops the last ones. */
    void resize(size_t n) {
        if (n < size_) {
            for (size_t i = n; i < size_ && i % kChunk != 0; i++)
                mut(i) = T(); // the kept last chunk holds no dropped element
        } else {
            for (size_t i = size_; i < n && i < chunks_.size() * kChunk; i++)
                mut(i) = T();
        }
        chunks_.resize((n + kChunk - 1) / kChunk);
        for (size_t c = 0; c < chunks_.size(); c++)
            if (!chunks_[c]) chunks_[c] = std::make_shared<Chunk>();
        size_ = n;
    }
    /** Chunks held (for a memory estimate): each kChunk elements. */
    size_t chunks() const { return chunks_.size(); }
    static constexpr size_t chunk_size() { return kChunk; }

    bool operator==(const SharedChunks &o) const {
        if (size_ != o.size_) return false;
        for (size_t c = 0; c < chunks_.size(); c++) {
            if (chunks_[c] == o.chunks_[c]) continue;
            for (size_t i = c * kChunk; i < size_ && i < (c + 1) * kChunk; i++)
                if (!((*this)[i] == o[i])) return false;
        }
        return true;
    }
    bool operator!=(const SharedChunks &o) const { return !(*this == o); }

    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T *;
        using reference = const T &;
        const_iterator(const SharedChunks *a, size_t i) : a_(a), i_(i) {}
        const T &operator*() const { return (*a_)[i_]; }
        const T *operator->() const { return &(*a_)[i_]; }
        const_iterator &operator++() {
            i_++;
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator o = *this;
            i_++;
            return o;
        }
        bool operator==(const const_iterator &o) const { return i_ == o.i_; }
        bool operator!=(const const_iterator &o) const { return i_ != o.i_; }

    private:
        const SharedChunks *a_;
        size_t i_;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

private:
    Chunk &own(size_t c) {
        ChunkPtr &p = chunks_[c];
        if (p.use_count() > 1) p = std::make_shared<Chunk>(*p);
        return *p;
    }

    ChunkPtrs chunks_;
    size_t size_ = 0;
};

} // namespace sextant
