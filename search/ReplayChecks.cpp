// The schedules SearchSpace::replay refuses though they parse: what Halide 14 would run
// wrongly. Internal to search (SearchSpaceDetail.h).
#include "SearchSpaceDetail.h"
#include "search/LoopNest.h"
#include "support/Errors.h"

#include <algorithm>
#include <sstream>

namespace sextant::detail {

namespace {

/** The 1-based line of `text` that places Func `name` ("func NAME ..."), 0 if none. */
int placement_line(const std::string &text, const std::string &name) {
    std::istringstream in(text);
    std::string line, word, func;
    for (int n = 1; std::getline(in, line); n++) {
        std::istringstream words(line);
        if (words >> word >> func && word == "func" && func == name) return n;
    }
    return 0;
}

} // namespace

void check_replayable(const PipelineDag &dag, const State &s, const std::string &schedule_text,
                      const std::vector<bool> &root_or_inline) {
    // An output's vectors (and their unrolled copies) wider than the split part they are
    // made of: Halide grows the loop to them, past the end of the user's buffer.
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &g = s.decisions[size_t(f.id)];
        const FuncNest *n = s.nests[size_t(f.id)].get();
        if (!f.is_output || g.placement == Placement::Inline || !n) continue;
        for (size_t i = 0; i < g.stages.size() && i < n->stages.size(); i++) {
            const StageSched &sc = g.stages[i];
            if (n->stages[i].order.empty()) continue;
            const int l = n->stages[i].order.back().stage_loop;
            const LoopTiling &t = sc.loops[size_t(l)];
            const int64_t lanes = int64_t(std::max(1, sc.vector_width)) * std::max(1, sc.unroll);
            if (t.mode != LoopMode::Split || t.tile >= lanes) continue;
            throw UserError(
                "schedule text line " + std::to_string(placement_line(schedule_text, f.name)) +
                ": output Func '" + f.name + "' stage " + std::to_string(i) + " splits loop '" +
                dag.stage(f.id, int(i)).loops[size_t(l)].name + "' by " + std::to_string(t.tile) +
                " but vectorizes and unrolls " + std::to_string(lanes) +
                " points of it: Halide would write past the end of the output "
                "buffer; make the split at least that wide");
        }
    }
    // A loop run in parallel or as vectors must have independent iterations (LoopDim::
    // parallel_safe): Halide refuses an RVar there, or a var the definition reads across ("may
    // introduce a race condition"). The loop order decides which loops those are: a pure loop
    // moved back inside can leave an RVar outermost (session 70's storage-order polish did,
    // random seeds 200094 and 200640). A factored reduction's parallel loop is its copies'.
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &g = s.decisions[size_t(f.id)];
        const FuncNest *n = s.nests[size_t(f.id)].get();
        if (g.placement == Placement::Inline || !n) continue;
        for (size_t i = 0; i < g.stages.size() && i < n->stages.size(); i++) {
            if (g.stages[i].rfactor) continue;
            const Stage &st = dag.stage(f.id, int(i));
            for (const ConcreteLoop &l : n->stages[i].order) {
                const LoopDim &dim = st.loops[size_t(l.stage_loop)];
                if ((!l.parallel && !l.vectorized) || dim.parallel_safe) continue;
                throw UserError(
                    "schedule text line " + std::to_string(placement_line(schedule_text, f.name)) +
                    ": Func '" + f.name + "' stage " + std::to_string(i) + " runs loop '" +
                    dim.name + "' " + (l.parallel ? "in parallel" : "as vectors") +
                    ", but its iterations depend on each other (" +
                    (dim.is_rvar ? "an RVar" : "the definition reads across it") +
                    "): Halide refuses it as a race; reorder the stage's loops so that a "
                    "loop of independent points is " +
                    (l.parallel ? "outermost, or lower its parallel count"
                                : "innermost, or use vector 1"));
            }
        }
    }
    // Loops unrolled outside the vectors: Halide unrolls a trip count it proves constant, or
    // the constant upper bound it finds, each copy guarded. A split's inner part and an RVar
    // have one; a whole pure loop has the Func's region along it, taken as constant only when
    // the buffer's size is (the search's rule for register tiles; conservative: Halide may
    // prove a single dimension constant). Otherwise Halide can stop the build ("Can only
    // unroll for loops over a constant extent"): a stage's register tile kept while its
    // consumer's tiling changed (session 52, nl_means' `blended`); or, for a region read
    // through a clamp, unroll to a loose bound (Tails.h, read_through_moving_clamp).
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &g = s.decisions[size_t(f.id)];
        const FuncNest *n = s.nests[size_t(f.id)].get();
        if (g.placement == Placement::Inline || !n || n->constant_size) continue;
        for (size_t i = 0; i < g.stages.size() && i < n->stages.size(); i++) {
            const Stage &st = dag.stage(f.id, int(i));
            for (const ConcreteLoop &l : n->stages[i].order) {
                if (!l.unrolled || st.loops[size_t(l.stage_loop)].is_rvar) continue;
                const LoopTiling &t = g.stages[i].loops[size_t(l.stage_loop)];
                if (t.mode == LoopMode::Split && !l.outer_part && !l.band_part) continue;
                throw UserError(
                    "schedule text line " + std::to_string(placement_line(schedule_text, f.name)) +
                    ": Func '" + f.name + "' stage " + std::to_string(i) + " unrolls loop '" +
                    st.loops[size_t(l.stage_loop)].name +
                    "' outside its vectors, a whole loop over the Func's region, in a buffer "
                    "of no constant size Halide can see: it stops the build where it cannot "
                    "bound that trip count (\"Can only unroll for loops over a constant "
                    "extent\"), or, where a consumer reads the Func through a clamp, unrolls "
                    "every iteration up to the clamp's bound (a statement that can take LLVM "
                    "minutes), so Sextant unrolls only split parts or loops of constant-size "
                    "buffers; unroll fewer loops (unroll_outer) or split that loop");
            }
        }
    }
    // A Func that reads a user's buffer unclamped, read through a consumer's clamp: inside the
    // consumer's loops its region shrinks at the image's edge below a tile, and the shifted
    // tile reads the buffer before its start (Tails.h, shrinks_at_edges).
    for (const FuncNode &f : dag.funcs) {
        if (s.decisions[size_t(f.id)].placement != Placement::At || !root_or_inline[size_t(f.id)])
            continue;
        throw UserError("schedule text line " +
                        std::to_string(placement_line(schedule_text, f.name)) + ": Func '" +
                        f.name +
                        "' reads an input without clamping its index and is read through a "
                        "clamp (a boundary condition): computed inside a consumer's loops, its "
                        "region shrinks at the image's edge below a tile, and Halide's shifted "
                        "tile reads the input before its start; compute it at root or inline it");
    }
    // What the search never offers because Halide 14 miscompiles it (StridedLoadHazard.cpp)
    // is refused here too: a hand edit or a replayed candidate would crash at run time.
    if (const int id = first_strided_load_hazard(dag, s); id >= 0) {
        const FuncNode &f = dag.funcs[size_t(id)];
        const FuncSched &g = s.decisions[size_t(id)];
        if (g.placement == Placement::Root) {
            const int c = root_strided_load_hazard(dag, s, id);
            throw UserError(
                "schedule text line " + std::to_string(placement_line(schedule_text, f.name)) +
                ": Func '" + f.name + "' at root is read by '" + dag.funcs[size_t(c)].name +
                "' with strided vector loads (stride 2-4: a downsample, or a select on the "
                "vector var's parity, which Halide deinterleaves) whose last, shifted-in vector "
                "has constant indices (both regions are constants Halide sees), which Halide 14 "
                "miscompiles on x86 (a load marked aligned from an unaligned address: SIGSEGV "
                "at run time; docs/SEARCH.md, \"Stack alignment on AVX-512\"); inline it, or "
                "vectorize '" +
                dag.funcs[size_t(c)].name + "' by a width that divides its extent");
        }
        throw UserError(
            "schedule text line " + std::to_string(placement_line(schedule_text, f.name)) +
            ": Func '" + f.name + "' computed at level " + std::to_string(g.at_level) + " of '" +
            dag.funcs[size_t(g.at_func)].name +
            "' leaves strided vector loads from it (stride 2-4: a downsample, or a select on "
            "the vector var's parity, which Halide deinterleaves) with constant indices, "
            "which Halide 14 miscompiles on x86 (a load marked aligned from "
            "an unaligned address: SIGSEGV at run time; docs/SEARCH.md, \"Stack "
            "alignment on AVX-512\"); compute it at a loop further out, or keep a "
            "serial loop over the consumer's vector dimension inside its level");
    }
}

} // namespace sextant::detail
