// State: one beam-search node — a schedule with the first `num_decided` Funcs of the search
// order decided. Owns its Decisions and shares its parent's FuncNests. Owns no features and
// no Halide objects; its cost is set by a StateEvaluator.
#pragma once

#include "search/LoopNest.h"
#include "search/Schedule.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace sextant {

struct State {
    Decisions decisions;
    Nests nests;
    /** Per Func: its predicted seconds (0 while undecided or inlined) and the page faults per
     * run its last scoring saw (its `page_faults` feature; -1 before it is scored). One array
     * for both: a child copies one, not two. */
    struct FuncScore {
        double cost = 0;
        double faults = -1;
        bool operator==(const FuncScore &o) const { return cost == o.cost && faults == o.faults; }
    };
    std::vector<FuncScore> func_scores;
    int num_decided = 0;
    SmallVec<int, 12> dirty; // Funcs whose cost the evaluator must (re)compute
    /** Funcs whose scores change only if their page faults do (another buffer of their nest
     * was placed: featurizer's heap_group_bytes): the evaluator scores them again only then. */
    SmallVec<int, 12> recheck;
    double cost = 0;       // predicted seconds per run; lower is better
    double root_bytes = 0; // bytes allocated at root (for the memory limit)
    /** The largest single buffer (one Tuple element of one Func's allocation) so far, and
     * the Func it belongs to: over MachineInfo::max_buffer_bytes, Halide refuses it. */
    double largest_buffer_bytes = 0;
    int largest_buffer_func = -1;
    bool buffer_too_large = false; // largest_buffer_bytes > MachineInfo::max_buffer_bytes
    /** IR nodes that unrolling adds to the generated code: per stage, (copies - 1) x its body
     * with inlined producers substituted (SearchSpaceOptions::max_unrolled_nodes). */
    double unrolled_nodes = 0;
    /** The Func the last decision placed (-1: none yet). */
    int decided = -1;
    /** Children of one parent that place `decided` alike and differ only in its tilings share
     * a non-zero id (SearchSpace::placement_children): every other Func's score, the heap
     * groups and the allocator estimate are the same for all of them (the placement fixes
     * `decided`'s buffer unless its update splits round the buffer up: those get 0), so an
     * evaluator may score one of them whole and the others by `decided`'s own rows. */
    uint64_t siblings = 0;
    uint64_t hash = 0;           // of all decisions so far
    uint64_t placement_hash = 0; // of the placements only (the coarse structure)
    /** Made on the search's helper thread (ChildrenAhead): dropped, it goes back there to be
     * freed (glibc frees memory slowly on a thread other than the one that allocated it). */
    bool made_beside = false;
};

using StatePtr = std::shared_ptr<State>;

/** Scores candidate states in batches. */
class StateEvaluator {
public:
    virtual ~StateEvaluator() = default;
    /** Sets `cost` (and func_scores) of every state; clears `dirty` and `recheck`.
     * Deterministic. */
    virtual void evaluate(const std::vector<State *> &states) = 0;
    /** From now on, price the allocator of a state with Funcs not yet placed as if each may
     * be a root buffer (estimate_allocator's `outlook`); a complete state is priced alike
     * either way. For BeamSearchOptions::allocator_outlook_pass; ignored where there is no
     * allocator term. */
    virtual void set_allocator_outlook(bool) {}
};

/** Mixes `v` into the running hash `h` (State::hash, State::placement_hash). */
uint64_t hash_mix(uint64_t h, uint64_t v);
/** The coarse part of a decision (placement only), as mixed into State::placement_hash. */
uint64_t placement_key(const FuncSched &fs);

} // namespace sextant
