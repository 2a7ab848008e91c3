// SearchSpace: the legal successors of a State — every placement of the next Func in the search
// order (outputs first) combined with every tiling of its stages. Legality is decided here:
// inlining only where Halide allows it, compute_at only inside the pure stage of the single
// consumer, splits never larger than the region, vectorizing and parallelizing only loops whose
// iterations are independent. It never scores.
#pragma once

#include "plugin/dag/PipelineDag.h"
#include "plugin/search/State.h"

#include <mutex>
#include <unordered_map>

namespace sextant {

struct SearchSpaceOptions {
    /** Coarse mode: a handful of tilings per stage (first pass of the search). */
    bool coarse = false;
    /** Prune states whose root allocations exceed this many bytes (<= 0: no limit). */
    double memory_limit_bytes = 0;
    /** Prune states whose unrolling adds more than this many IR nodes (State::unrolled_nodes;
     * <= 0: no limit). Unrolling is code: on bench local_laplacian a learned model unrolled 35
     * stages' outer loops (register blocking), which made compilation 3.6x slower (16.3 s vs
     * 4.5 s replaying the same schedule without it) for no runtime gain (194 vs 191 ms). */
    double max_unrolled_nodes = 8192;
};

class SearchSpace {
public:
    explicit SearchSpace(const PipelineDag &dag);

    /** Funcs in decision order: consumers before producers, input wrappers skipped. */
    const std::vector<int> &order() const { return order_; }
    StatePtr initial_state() const;
    bool is_complete(const State &s) const { return s.num_decided == int(order_.size()); }

    /** Appends all legal children of `s` (one more Func decided) to `out`. */
    void children(const State &s, const SearchSpaceOptions &opt,
                  std::vector<StatePtr> *out) const;

    /** Tilings of stage `s` for a realization with loop box `box`. */
    std::vector<StageSched> tilings(const Stage &s, const Box64 &box, bool may_parallelize,
                                    bool coarse) const;

    /** Builds the child of `parent` deciding its next Func as `fs`; `placed` (optional) is
     * the placement part of its nest, shared by siblings with the same placement. */
    StatePtr make_child(const State &parent, const FuncSched &fs,
                        const FuncNest *placed = nullptr) const;

private:
    const PipelineDag &dag_;
    std::vector<int> order_;

    int vector_lanes(int func) const;
    /** tilings() memoized: sibling states mostly ask for the same stage and region. */
    const std::vector<StageSched> &cached_tilings(const Stage &s, const Box64 &box,
                                                  bool may_parallelize, bool coarse) const;
    mutable std::unordered_map<uint64_t, std::vector<StageSched>> tiling_cache_;
    mutable std::mutex tiling_cache_mutex_;
    std::vector<FuncSched> placements(const State &s, int func) const;
    /** False if inlining `func` would make a consumer's loop body (its definition with every
     * inlined producer substituted, times the copies its unrolling makes) larger than
     * kMaxInlinedBodyNodes IR nodes. Inlining a chain of stencils multiplies the expression
     * at each level: 5 levels of a 2x2 pyramid are ~1000 loads per point, 5 levels of 3x3
     * ~60000, and Halide's lowering and LLVM then take minutes on one basic block (bench
     * interpolate: a 23,000-line lowered Stmt, generator killed after 120 s). */
    bool inline_fits(const State &s, int func) const;

    /** Copies of stage (func, stage) its unrolling makes: vector unroll x the fully unrolled
     * outer loop's extent (1 if the stage is not decided yet). */
    double stage_copies(const State &s, int func, int stage) const;

public:
    static constexpr double kMaxInlinedBodyNodes = 4096;
};

} // namespace sextant
