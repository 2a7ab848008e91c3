// Schedule decisions: what the search decides for each Func. Plain data, no Halide.
//
// A Func is inlined, computed at root, or computed at one loop of a Func's stage that encloses
// all its uses (a consumer's own loop, or a loop of a Func the consumers are computed in), with
// its storage at that loop or one or two serial loops further out (a sliding window; see
// SearchSpace::placements for where the search offers each). Each stage of a non-inlined Func is
// then tiled: every loop is kept whole in the inner group, moved whole to the outer group, or split
// into an outer and an inner part (a pure loop may have a band part between them; the outermost
// RVar may be split, its inner part then runs with the middle RVars). The loop order is: outer
// group, band group, inner group (each outermost storage dim first), with middle RVars just outside
// the innermost loop; the innermost loop may be vectorized and unrolled, and the N loops just
// outside it fully unrolled (`unroll_outer`: a register tile); a prefix of the order may be
// parallel (a prefix of several loops is fused into one parallel loop where no Func is computed
// between them). See docs/SEARCH.md.
#pragma once

#include "search/SharedChunks.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sextant {

/** A vector with inline storage for at most N elements: the search copies schedules for
 * every candidate, and per-stage loop lists are short, so they live without the heap. */
template <typename T, size_t N> class InlineVec {
public:
    InlineVec() = default;
    InlineVec(std::initializer_list<T> init) {
        for (const T &v : init)
            push_back(v);
    }
    InlineVec(const std::vector<T> &v) {
        for (const T &x : v)
            push_back(x);
    }
    void push_back(const T &v) {
        if (size_ == N)
            throw std::length_error("InlineVec: more than " + std::to_string(N) + " loops");
        data_[size_++] = v;
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }
    const T *begin() const { return data_.data(); }
    const T *end() const { return data_.data() + size_; }
    T *begin() { return data_.data(); }
    T *end() { return data_.data() + size_; }
    bool operator==(const InlineVec &o) const {
        if (size_ != o.size_) return false;
        for (size_t i = 0; i < size_; i++)
            if (!(data_[i] == o.data_[i])) return false;
        return true;
    }

private:
    std::array<T, N> data_{};
    size_t size_ = 0;
};

/** Largest buffer put on a thread's stack with store_in(MemoryType::Stack), and the most all
 * stack buffers inside one Root Func's nest may hold together: Halide's worker threads get
 * the default pthread stack (8 MiB on Linux). */
constexpr double kMaxStackBufferBytes = 512 * 1024;
constexpr double kMaxStackBytesPerNest = 2 * 1024 * 1024;

/** Most iterations of a loop moved inside the vector loop (StageSched::unrolled_inside). */
constexpr int64_t kMaxUnrolledInside = 4;
/** Registers the lanes of a stage with a loop unrolled inside its vectors may fill, at the
 * stage's widest arithmetic type (unrolled_inside_fits_registers). */
constexpr int64_t kUnrolledInsideRegisters = 8;

/** Most loops a stage may have (pure dimensions plus RVars). */
constexpr size_t kMaxStageLoops = 16;

enum class Placement : uint8_t { Undecided, Inline, Root, At };

enum class LoopMode : uint8_t {
    Inner,  // whole loop, in the inner group
    Outer,  // whole loop, in the outer group
    Split,  // outer part in the outer group, inner part (`tile` iterations) in the inner group;
            // with a `band`, a third part between them (multi-level tiling)
    Middle, // RVars only: whole, inside the inner group but outside its innermost pure loop
            // (a reduction accumulating in registers over a vector of pure points)
};

struct LoopTiling {
    LoopMode mode = LoopMode::Inner;
    int64_t tile = 0; // inner extent when mode == Split
    /** Split pure loops only: 0, or the points one outer iteration covers (a multiple of
     * `tile`); the band part, `band / tile` iterations, runs in the band group between the
     * outer and inner groups: strip -> band -> tile. */
    int64_t band = 0;
    bool operator==(const LoopTiling &o) const {
        return mode == o.mode && tile == o.tile && band == o.band;
    }
};

struct StageSched {
    /** One entry per stage loop, in the stage's loop order (innermost first). */
    InlineVec<LoopTiling, kMaxStageLoops> loops;
    int vector_width = 1; // lanes of the innermost loop; 1 = scalar
    int unroll = 1;       // vectors (or scalars) unrolled in the innermost loop
    int parallel = 0;     // number of outermost loops of the final order marked parallel
    /** How many loops just outside the innermost one are fully unrolled, innermost first: 1 is
     * the inner part of a short split (register blocking: loads invariant in it are shared);
     * more is a register tile, every pure loop of a small constant-size realization unrolled
     * with the reductions outside (matmul's accumulator block, conv_relu's 16c x 8x x 3y). */
    int unroll_outer = 0;
    /** An update with Stage::can_rfactor and no pure loop, of a Root Func: its outermost RVar,
     * split into bands (the Split's tile is a band's height), runs one band per parallel task,
     * each into its own copy of the Func; the copies are then added (maxed, ...) into the Func
     * (Halide's rfactor: `split(r, r_o, r_i, tile).rfactor(r_o, u)`, the copies computed at
     * root, their update parallel over u). The stage's loops are then the outermost RVar
     * split with the other RVars middle, parallel 1: the nest the copies run. */
    bool rfactor = false;
    /** -1, or the stage loop (a pure loop kept whole in the inner group, of at most
     * kMaxUnrolledInside iterations, outside the vector loop) that is moved inside the vector
     * loop and fully unrolled: an expert's `reorder(c, x, y).unroll(c).vectorize(x, 16)`. Each
     * vector of x then computes every c, so what does not depend on c (a lookup table read at
     * the pixel's luma, the alpha channel that divides the colours) is computed once for all
     * of them (LLVM merges the repeated pure loads and arithmetic). Only the autotuner proposes
     * it (a tweak); the featurizer prices it as the same schedule without it. */
    int unrolled_inside = -1;
    bool operator==(const StageSched &o) const {
        return loops == o.loops && vector_width == o.vector_width && unroll == o.unroll &&
               parallel == o.parallel && unroll_outer == o.unroll_outer && rfactor == o.rfactor &&
               unrolled_inside == o.unrolled_inside;
    }
};

/** The per-stage schedules of one Func, shared between copies until one of them is changed
 * (copy on write): every search state copies all Funcs' decisions, and all but the newest
 * are the parent's, so a copy costs a pointer instead of an allocation and ~400 bytes per stage.
 * A mutable element or iterator is valid only until the owner is copied: take it, write
 * through it, then copy (never write through one taken before a copy). */
class StageScheds {
public:
    StageScheds() = default;
    StageScheds(std::initializer_list<StageSched> init)
        : v_(std::make_shared<std::vector<StageSched>>(init)) {}
    StageScheds(std::vector<StageSched> v)
        : v_(std::make_shared<std::vector<StageSched>>(std::move(v))) {}
    size_t size() const { return v_ ? v_->size() : 0; }
    bool empty() const { return size() == 0; }
    const StageSched &operator[](size_t i) const { return (*v_)[i]; }
    StageSched &operator[](size_t i) { return own()[i]; }
    const StageSched &back() const { return v_->back(); }
    StageSched &back() { return own().back(); }
    const StageSched *begin() const { return v_ ? v_->data() : nullptr; }
    const StageSched *end() const { return v_ ? v_->data() + v_->size() : nullptr; }
    StageSched *begin() { return v_ ? own().data() : nullptr; }
    StageSched *end() { return v_ ? own().data() + v_->size() : nullptr; }
    void push_back(const StageSched &s) { own().push_back(s); }
    void resize(size_t n) { own().resize(n); }
    void assign(size_t n, const StageSched &s) {
        if (v_ && v_.use_count() == 1)
            v_->assign(n, s);
        else // a fresh vector: no copy of the shared one, which is overwritten anyway
            v_ = std::make_shared<std::vector<StageSched>>(n, s);
    }
    void clear() { v_.reset(); }
    bool operator==(const StageScheds &o) const {
        if (v_ == o.v_) return true;
        if (size() != o.size()) return false;
        for (size_t i = 0; i < size(); i++)
            if (!((*v_)[i] == (*o.v_)[i])) return false;
        return true;
    }

private:
    std::vector<StageSched> &own() {
        if (!v_)
            v_ = std::make_shared<std::vector<StageSched>>();
        else if (v_.use_count() > 1)
            v_ = std::make_shared<std::vector<StageSched>>(*v_);
        return *v_;
    }
    std::shared_ptr<std::vector<StageSched>> v_;
};

struct FuncSched {
    Placement placement = Placement::Undecided;
    int at_func = -1;  // Placement::At: the consumer Func
    int at_level = -1; // Placement::At: index in the loop order of the consumer's stage
    /** Placement::At: the consumer loop its storage is allocated in; -1 = at_level. A level
     * further out (with only serial loops in between) lets Halide slide the window: each
     * point is computed once per storage realization instead of once per compute. */
    int store_level = -1;
    /** The consumer loop the storage is allocated in: store_level, or at_level if none. */
    int storage_level() const { return store_level < 0 ? at_level : store_level; }
    StageScheds stages; // empty unless Root or At
    /** Placement::At: which stage of the consumer: 0 (pure), or the one update stage that
     * makes every use (Halide's compute_at(f, var) goes to the stage that uses the Func). */
    int at_stage = 0;
    /** Placement::At: `store_in(MemoryType::Stack)`. Set by the search (never chosen freely)
     * when the buffer's size is a constant Halide can see (FuncNest::constant_size), over
     * Halide's own 16 KiB stack limit and within kMaxStackBufferBytes: it is then alloca'd
     * in the thread's stack frame instead of malloc'd and freed at every iteration. */
    bool stack = false;
    bool operator==(const FuncSched &o) const {
        return placement == o.placement && at_func == o.at_func && at_level == o.at_level &&
               at_stage == o.at_stage && store_level == o.store_level && stack == o.stack &&
               stages == o.stages;
    }
};

/** A complete or partial schedule: one FuncSched per Func of the DAG (by id); write one with
 * `mut(func)` or `set(func, fs)`. */
using Decisions = SharedChunks<FuncSched>;

} // namespace sextant
