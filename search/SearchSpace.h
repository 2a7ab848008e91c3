// SearchSpace: the legal successors of a State — every placement of the next Func in the search
// order (outputs first) combined with every tiling of its stages. Legality is decided here:
// inlining only where Halide allows it, compute_at only at loops that enclose every use of the
// Func (see placements()), splits never larger than the region, vectorizing and parallelizing
// only loops whose iterations are independent. It never scores.
#pragma once

#include "dag/PipelineDag.h"
#include "search/State.h"
#include "search/Tails.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace sextant {

namespace detail {
/** Evenly thins `v` to at most `cap` entries, keeping the first. */
template <typename T> void thin(std::vector<T> *v, size_t cap) {
    if (v->size() <= cap) return;
    std::vector<T> out;
    double step = double(v->size()) / double(cap);
    for (size_t i = 0; i < cap; i++)
        out.push_back((*v)[size_t(i * step)]);
    *v = std::move(out);
}
} // namespace detail

/** The sizes one kind of split is drawn from: all of them in the fine passes, a few in the
 * first (coarse) pass. */
struct SizeList {
    std::vector<int64_t> fine, coarse;
    const std::vector<int64_t> &get(bool coarse_pass) const { return coarse_pass ? coarse : fine; }
};

/** What the search offers, and the caps that thin it. BeamSearch copies
 * BeamSearchOptions::space into each pass (setting `coarse` and `memory_limit_bytes`); the
 * plugin fills it from SEXTANT_SEARCH_SPACE (parse_search_space_options). Every default is the
 * value the benchmarks in docs/BENCHMARKS.md were measured with. */
struct SearchSpaceOptions {
    /** Coarse mode: a handful of tilings per stage (first pass of the search). */
    bool coarse = false;
    /** Prune states whose root allocations exceed this many bytes (<= 0: no limit). */
    double memory_limit_bytes = 0;
    /** Prune states whose unrolling adds more than this many IR nodes (State::unrolled_nodes;
     * <= 0: no limit). Unrolling is code: on bench local_laplacian a learned model unrolled 35
     * stages' outer loops (register blocking), which made compilation 3.6x slower (16.3 s vs
     * 4.5 s replaying the same schedule without it) for no runtime gain (194 vs 191 ms).
     * Pipelines of more than kUnrollBudgetFuncs Funcs get the budget scaled down by
     * kUnrollBudgetFuncs / Funcs: Halide's lowering of unrolled loops inside deep compute_at
     * nests grows faster than the nodes (bench synthetic_200, 201 Funcs: 8,187 unrolled nodes
     * made the generator take 124 s, 90 of them in Halide after the search; 4,094: 39 s). */
    double max_unrolled_nodes = 8192;
    /** Autotuning's extra tilings (tweaks only, never the one-shot search, whose cost model
     * cannot tell them from their twins): a stage whose widest arithmetic at the natural width
     * fills more than two registers is also offered half that width (bench
     * histogram_equalize's uint8 output computes in int32: 16 lanes ran 15.4 ms against 16.2
     * at 32), and a vectorized stage with a short pure loop outside its vectors also has that
     * loop unrolled inside them (StageSched::unrolled_inside). */
    bool autotune_tilings = false;
    /** A vectorized stage with a short pure loop (2-4 points, whole in the inner group, not
     * parallel) outside its vectors is also offered with that loop unrolled inside them
     * (StageSched::unrolled_inside), which the featurizer prices by the loads the copies
     * share (the expert's interpolate computes every level with `c` unrolled inside the
     * vectors, and `down_0`'s alpha, `clamped(x, y, 3)`, is loaded once for four channels).
     * No Func is computed or stored at or inside that loop. Off in the one-shot search
     * (`SEXTANT_SEARCH_SPACE=unroll_inside=1` turns it on): on the bench (session 43) it
     * moved 13 of 18 picks, interpolate 0.79-0.94x, bilateral_guided_upsampling 0.82x,
     * histogram_equalize 0.86x, but camera_pipe 1.22-1.41x (a register tile traded for `c`
     * inside) and unsharp_mask 1.12-1.23x (a beam that ended elsewhere): docs/SEARCH.md;
     * session 67 again: 13 of 24 moved, histogram_equalize 0.76x, interpolate 1.37x, conv_relu
     * 1.25x. Off, the one-shot search still offers the twin of a stage whose copies share a
     * gather (shares_gather: histogram_equalize's `lut(luma(x, y))`, 0.87-0.90x). */
    bool unroll_inside = false;
    /** Tilings kept per stage (evenly thinned from all legal ones), in the fine and coarse
     * passes. */
    int tilings_per_stage = 128;
    int tilings_per_stage_coarse = 16;
    /** Tilings kept for each stage of a multi-stage Func but the one with the most work. */
    int tilings_other_stages = 3;
    int tilings_other_stages_coarse = 1;
    /** Combinations of stage tilings per placement of a Func (evenly thinned). */
    int combos_per_placement = 256;
    int combos_per_placement_coarse = 16;
    /** Per-loop tiling options enumerated for one stage at most (their product): above it,
     * the loops with the most options are thinned first. Bounds the work and memory a stage
     * with many dimensions costs (a 5-D stage whose pure loops all split: 6 x 8^4 x ...). */
    int max_loop_option_product = 4096;
    /** Re-tiling the consumer for a producer: when every use of a Func is in one stage of a
     * consumer that has nothing computed inside it yet, also offer that stage with one more
     * of its whole pure loops split (the vector loop by 2, 8 or 16 vectors, the others by 4,
     * 16 or 64; in the coarse pass the first and last of each) or moved outside, and the
     * Func computed at the new outer loop or at the innermost loop outside the new tile. A
     * root stage gets its parallel loops chosen again for the new order. The consumer's
     * tiling was chosen before its producers, when such a split bought nothing: bench
     * iir_blur's column scan `down` can be computed per strip of columns only if `up`'s copy
     * stage splits x. */
    bool retile_consumers = true;
    /** With retile_consumers: a pure loop of at most this many points (colour channels) that
     * the consumer keeps outside its tiles is also offered inside them, the Func computed at
     * the outer parts of its split loops, once per tile for all those points (0: never).
     * Bench camera_pipe_planar: `linear` per 2-row band of `curved` for its three channels ran
     * 37.0 ms against 66.5 with the channels outside the bands and `linear` inlined; with no
     * limit the move changed four more bench picks, depthwise_separable_conv's 3.61 -> 5.39 ms
     * (a loop of its boundary wrapper, not a channel loop, brought inside). */
    int retile_inside_max_points = 4;
    /** Register blocks: a Func with a reduction (an update with RVars) whose uses are all in
     * one stage of one consumer with nothing inside it is also offered that consumer re-tiled
     * into blocks of one vector by up to 8 x 8 points (as many accumulator vectors as three
     * quarters of the register file hold), every other pure loop outside, and the Func
     * computed per block: its update runs the reduction over the block with the accumulators
     * in registers. Bench depthwise_separable_conv: the 1x1 convolution computed per block of
     * 16 channels x 3 x 4 points of its output ran 2.4 ms vs 4.4 ms per row strip of 16 columns
     * (the search's pick before). */
    bool register_blocks = true;
    /** The consumer's reduction outside: when every use of a Func is in one update stage with
     * RVars (and nothing is computed inside its Func yet), also offer that stage with every
     * RVar moved to the outer group and the Func computed at the innermost RVar loop: once
     * per iteration of the reduction, over the whole tile of pure points. Bench nl_means:
     * without it the pick computes every search offset's weights per output row, and so the
     * 7-row patch sums 7 times over (its reduction order is chosen before its producers
     * exist, when an outer reduction only costs loads and stores): 34.7 ms. With this move
     * and BeamSearchOptions::equal_cost_share the pick computes them per offset, 26.9 ms; a
     * hand schedule of that kind with 64 x 32 output tiles runs 10.5 ms
     * (bench/schedules/known/nl_means.txt; docs/BENCHMARKS.md has the runs). */
    bool reduction_outside = true;
    /** Register tiles: every update stage of a Func with a reduction, computed per tile of a
     * consumer in a constant-size buffer, is also offered with all the pure loops just
     * outside its vector loop fully unrolled (up to the first RVar, outer part or loop of
     * one point), when their accumulator vectors fit three quarters of the register file;
     * StageSched::unroll_outer counts the loops. Offered as a twin of each tiling
     * combination. Bench conv_relu's 16c x 8x x 3y block unrolled ran 2.04 ms vs 2.41 left to
     * LLVM, matmul's 12 rows of two vectors 0.754 vs 0.694 (docs/SEARCH.md). */
    bool register_tiles = true;
    /** Sliding windows over the inner part of a split (storage at the tile's loop, compute
     * per row of the tile, as Adams2019's box_blur slides `rows` down 16-row bands). Never
     * over the outer part of a split; not above walk_up_max_funcs Funcs. */
    bool slide_in_split_tiles = true;
    /** Sliding windows inside an update stage's nest: storage one or two serial loops out
     * from the compute level, both loops of the consumer's update stage. */
    bool slide_in_updates = true;
    /** Sliding strips: a Root consumer re-tiled for its first producer into parallel strips
     * of whole rows, the producer stored per strip and computed per row (SearchRetilings'
     * Retiler::strips). */
    bool slide_strips = true;
    /** Tiling combinations of the Func per re-tiled consumer: combos_per_placement over this. */
    int retile_combos_divisor = 4;
    /** Children over a limit kept per parent (of each kind) in case none is under it. */
    int max_fallback_children = 64;

    // --- Split sizes (docs/SEARCH.md, "Tiling of each stage" and the re-tilings) ---
    /** A stage's innermost storage dimension (its vector loop), in vectors. */
    SizeList vector_splits{{1, 2, 4, 8, 16, 32}, {2, 8}};
    /** Its other pure loops, in points. */
    SizeList split_factors{{2, 3, 4, 6, 8, 12, 16, 32, 64}, {8}};
    /** The same two above large_pipeline_funcs Funcs (no one-vector tiles, no 3, 6, 12):
     * bench synthetic_200's generator takes ~80 s with them, over 120 s with the full lists,
     * in Halide's lowering after a 30 s search. */
    SizeList vector_splits_large{{2, 4, 8, 16, 32}, {2, 8}};
    SizeList split_factors_large{{2, 4, 8, 16, 32, 64}, {8}};
    /** A consumer re-tiled for a producer: its vector loop (in vectors), its other loops. */
    SizeList retile_vector_splits{{2, 8, 16}, {2, 16}};
    SizeList retile_split_factors{{4, 16, 64}, {8, 64}};
    /** Rows of a sliding strip (slide_strips); a height leaving fewer strips than cores is
     * skipped. The coarse pass needs the tall ones too: every stage of a chain sliding in
     * 64-row strips recomputes its margin rows four times as often as in 256-row ones, and
     * with 64 alone bench stencil_chain's all-sliding structure fell out of the coarse beam
     * at its sixth stage (SEXTANT_TRACE_SCHEDULE), so the fine passes never saw it. */
    SizeList strip_rows{{16, 32, 64, 128, 256}, {64, 256}};
    /** Bands of a split loop, in tiles (fine passes only). */
    std::vector<int64_t> band_tiles{4, 16};
    /** Chunks of a reduction split, in iterations of the outermost RVar. */
    SizeList reduction_chunks{{4, 8, 16}, {16}};
    /** Points of a register block's non-vector loops. */
    SizeList register_block_points{{1, 2, 3, 4, 6, 8}, {1, 4}};

    // --- Caps for large pipelines and for code size ---
    /** Above this many Funcs a Func is placed only at the basic sites (in its single
     * consumer, or beside its consumers in the Func that holds them directly), no consumer is
     * re-tiled, nothing slides over a split, and the `_large` split sizes apply: see
     * SearchSpace::placements. */
    int large_pipeline_funcs = 100;
    /** In such pipelines a Func is computed at most this many compute_at links below a Root
     * Func (0: no limit). */
    int large_max_nest_depth = 2;
    /** In such pipelines a loop holds at most this many Funcs computed at it (0: no limit).
     * Halide's bounds inference for Funcs computed beside each other at one loop, each read by
     * the next through clamped (boundary-condition) coordinates, grows with every one: bench
     * synthetic_200: a pick that computes 10 Funcs of one chain at the row-strip loop of
     * `stage_81` takes 257 s in its generator (replaying the pick; 137 s with only those 10
     * left at that loop and the other compute_at Funcs at root, 43 s with all at root). */
    int large_max_funcs_per_site = 4;
    /** Inlining is offered only while a consumer's body with every inlined producer
     * substituted, times the copies its unrolling makes, stays within this many IR nodes. */
    double max_inlined_body_nodes = 4096;
    /** Above this many Funcs, max_unrolled_nodes shrinks in proportion. */
    double unroll_budget_funcs = 100;
};

/** Sets the fields `text` names ("key=value,key=value"; a size list is "4/8/16", a SizeList
 * "fine:coarse", e.g. "split_factors=2/4/8:8,large_pipeline_funcs=200"). Returns an empty
 * string, or what is wrong (an unknown key, a value that does not parse or is out of range);
 * `opt` is then unchanged. */
std::string parse_search_space_options(const std::string &text, SearchSpaceOptions *opt);

class SearchSpace {
public:
    explicit SearchSpace(const PipelineDag &dag);

    const PipelineDag &dag() const { return dag_; }
    /** Funcs in decision order: consumers before producers, input wrappers skipped. */
    const std::vector<int> &order() const { return order_; }
    StatePtr initial_state() const;
    /** The complete state a ScheduleText describes (decisions and their nests), every Func
     * dirty so that an evaluator scores all of it: the one replay path of the plugin
     * (SEXTANT_SCHEDULE_FILE), the training export and the tests. Throws UserError if the text
     * does not fit the DAG, or asks for what Halide 14 runs wrongly: strided vector loads it
     * misaligns, an output's vectors wider than the split part they are made of. */
    StatePtr replay(const std::string &schedule_text) const;
    bool is_complete(const State &s) const { return s.num_decided == int(order_.size()); }

    /** Appends all legal children of `s` (one more Func decided) to `out`. */
    void children(const State &s, const SearchSpaceOptions &opt, std::vector<StatePtr> *out) const;
    /** The same children, handed to `emit` one at a time as they are made, so the caller
     * decides how many it holds. Children over the unroll or root-memory limits are emitted
     * only if no child of `s` is under them (at most max_fallback_children of them). */
    void children(const State &s, const SearchSpaceOptions &opt,
                  const std::function<void(StatePtr)> &emit) const;
    /** The children whose State::placement_hash is in `allowed` (a later pass continuing the
     * structures of the passes before), the others never made: every tiling of a placement
     * shares its hash. Which children the limits let through depends on all of them, so when
     * no allowed child is under the limits this emits nothing and returns false; the caller
     * then takes the unfiltered children and filters them itself. */
    bool children(const State &s, const SearchSpaceOptions &opt,
                  const std::function<void(StatePtr)> &emit,
                  const std::set<uint64_t> &allowed) const;

    /** Loops of `sc` just outside its vector loop that a register tile unrolls (0: none):
     * pure, serial, not an outer or band part, at least 2 iterations over `box`, their
     * vectors (x unroll) within the register budget. */
    int register_tile_loops(const Stage &s, const StageSched &sc, const Box64 &box) const;

    /** Tilings of stage `s` for a realization with loop box `box`, at most
     * opt.tilings_per_stage (coarse: tilings_per_stage_coarse) of them. */
    std::vector<StageSched> tilings(const Stage &s, const Box64 &box, bool may_parallelize,
                                    const SearchSpaceOptions &opt) const;
    /** The same with default options but `coarse` and the cap. */
    std::vector<StageSched> tilings(const Stage &s, const Box64 &box, bool may_parallelize,
                                    bool coarse, int cap = 128) const;

    /** Bytes the memo caches hold (approximate), and dropping them (they refill on demand). */
    double cache_bytes() const;
    void clear_caches() const;

    /** Builds the child of `parent` deciding its next Func as `fs`; `placed` (optional) is
     * the placement part of its nest, shared by siblings with the same placement. */
    StatePtr make_child(const State &parent, const FuncSched &fs,
                        const FuncNest *placed = nullptr) const;

    /** Copies of stage (func, stage) its unrolling makes: vector unroll x the fully unrolled
     * outer loop's extent (1 if the stage is not decided yet). */
    double stage_copies(const State &s, int func, int stage) const;

private:
    /** Keeps `func`'s buffer in State::largest_buffer_bytes (and buffer_too_large) if it is the
     * largest yet: a root Func's estimated region, a compute_at Func's largest allocation
     * (FuncNest::max_alloc_points), times its largest Tuple element; never an output's. */
    void note_buffer(State &s, int func) const;

    const PipelineDag &dag_;
    std::vector<int> order_;
    /** split_tail() of every (func, stage, loop), computed once. */
    std::vector<std::vector<std::vector<Tail>>> tails_;
    /** Per Func: shrinks_at_edges (Tails.h), so placed at root or inlined only. */
    std::vector<bool> root_or_inline_;
    /** OpHistogram::total() of every (func, stage), computed once (make_child asks for it per
     * child). */
    std::vector<std::vector<double>> stage_ops_;

    /** The widest vector the search offers the Func (MachineInfo::natural_vector_lanes, at
     * most 32). */
    int vector_lanes(int func) const;
    /** How many outermost loops of `n` run in parallel: until there are 8 tasks per core, or
     * a loop that may not (an RVar, a dimension with a loop-carried dependence). */
    int parallel_loops(const Stage &s, const StageNest &n, int vector_width) const;
    /** Per loop of `s`, the tilings tilings() combines (RVars: whole and inner, the caller
     * sets their common mode), thinned until their product is at most
     * opt.max_loop_option_product. */
    std::vector<std::vector<LoopTiling>> loop_options(const Stage &s, const Box64 &box,
                                                      const SearchSpaceOptions &opt) const;
    /** Appends the schedules of one combination of loop tilings: each vector width with and
     * without unrolling, parallel (if allowed) and serial, and register-blocked. */
    void add_vectorized(const Stage &s, const Box64 &box, const std::vector<LoopTiling> &loops,
                        bool may_par, bool coarse, bool autotune_tilings,
                        std::vector<StageSched> &out) const;
    /** tilings() memoized: sibling states mostly ask for the same stage and region. */
    std::vector<StageSched> cached_tilings(const Stage &s, const Box64 &box, bool may_parallelize,
                                           const SearchSpaceOptions &opt) const;
    /** What a tiling depends on, compared in full (a 64-bit hash alone could hand a stage
     * another stage's tilings). */
    struct TilingKey {
        int func, stage;
        bool may_parallelize, coarse;
        int cap, max_loop_option_product;
        std::vector<int64_t> sizes; // the split sizes in use, then the box's bounds
        bool operator==(const TilingKey &o) const {
            return func == o.func && stage == o.stage && may_parallelize == o.may_parallelize &&
                   coarse == o.coarse && cap == o.cap &&
                   max_loop_option_product == o.max_loop_option_product && sizes == o.sizes;
        }
    };
    struct TilingKeyHash {
        size_t operator()(const TilingKey &k) const;
    };
    mutable std::unordered_map<TilingKey, std::vector<StageSched>, TilingKeyHash> tiling_cache_;
    mutable size_t tiling_cache_entries_ = 0; // StageScheds held by tiling_cache_
    mutable std::mutex tiling_cache_mutex_;
    mutable std::atomic<uint64_t> next_siblings_id_{0}; // State::siblings

    std::vector<FuncSched> placements(const State &s, int func,
                                      const SearchSpaceOptions &opt) const;
    /** The children of `parent` placing its next Func as `p`: every tiling combination of the
     * Func's stages (evenly thinned to `combo_cap`), each followed by its register-tiled twin
     * where one applies; passed to `offer`. */
    void placement_children(const State &parent, FuncSched p, int combo_cap,
                            const SearchSpaceOptions &opt,
                            const std::function<void(StatePtr)> &offer) const;
    /** children() with an optional placement filter (null: none); false as the filtered
     * overload says. */
    bool children_of(const State &s, const SearchSpaceOptions &opt,
                     const std::function<void(StatePtr)> &emit,
                     const std::set<uint64_t> *allowed) const;
    /** Appends `func` computed at each loop 0..last of stage `stage` of `anchor` (outermost
     * first, down to the vector loop), each followed by its sliding-window variants. */
    void offer_site(const State &s, int func, int anchor, int stage, int last,
                    const SearchSpaceOptions &opt, std::vector<FuncSched> &out) const;
    /** A copy of a state with the consumer of `func` re-tiled, and `func`'s placement at the
     * new loop (SearchSpaceOptions::retile_consumers). */
    struct Retiling {
        StatePtr parent;
        FuncSched placement;
    };
    std::vector<Retiling> retilings(const State &s, int func, const SearchSpaceOptions &opt) const;
    /** False if inlining `func` would make a consumer's loop body (its definition with every
     * inlined producer substituted, times the copies its unrolling makes) larger than
     * opt.max_inlined_body_nodes IR nodes. Inlining a chain of stencils multiplies the expression
     * at each level: 5 levels of a 2x2 pyramid are ~1000 loads per point, 5 levels of 3x3
     * ~60000, and Halide's lowering and LLVM then take minutes on one basic block (bench
     * interpolate: a 23,000-line lowered Stmt, generator killed after 120 s). */
    bool inline_fits(const State &s, int func, const SearchSpaceOptions &opt) const;
    /** More Funcs than opt.large_pipeline_funcs. */
    bool large(const SearchSpaceOptions &opt) const {
        return dag_.funcs.size() > size_t(opt.large_pipeline_funcs);
    }

    /** Bound on the IR walk that counts an inlined Func's nodes in unrolled copies. */
    static constexpr double kUnrollWalkCap = 64 * 4096;
};

} // namespace sextant
