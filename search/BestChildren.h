// BestChildren: the beam's selection of one step. Children come in as they are made, are
// scored in groups on the search's JobQueue, and the best `keep` distinct ones of each batch
// and of those kept so far are kept (at most a share of one placement structure or of one
// cost). Used by BeamSearch.cpp only.
#pragma once

#include "search/BeamSearch.h"
#include "search/ChildrenAhead.h"
#include "search/JobQueue.h"
#include "search/State.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

namespace sextant::detail {

/** Lower predicted cost first; a state with a buffer over Halide's size limit after every
 * state without one. */
inline bool better_state(const StatePtr &a, const StatePtr &b) {
    if (a->buffer_too_large != b->buffer_too_large) return b->buffer_too_large;
    if (a->cost != b->cost) return a->cost < b->cost;
    return a->hash < b->hash;
}

/** The best `keep` distinct states of a stream of children, selected in batches of at most
 * `batch`. Children are scored in groups as they come, on the queue's thread while this one
 * makes the next children; states are selected on this thread alone (the queue's thread only
 * reads them and sets their costs), and dropped ones are freed here or, if a ChildrenAhead
 * helper made them, handed back to it. The states kept are those of scoring
 * each batch whole and merging the batches in order: a state's cost depends on it alone.
 * With `overlap`, a full batch is merged only once the next one is full (or at the end), so
 * that this thread makes children while the last batch is still being scored: it then holds
 * at most keep + 2 x batch states, else keep + batch. */
class BestChildren {
public:
    BestChildren(StateEvaluator &eval, JobQueue &queue, SearchStats *stats, size_t keep,
                 size_t batch, size_t per_structure, size_t per_cost, double near_cost,
                 bool overlap)
        : eval_(eval), queue_(queue), stats_(stats), keep_(std::max<size_t>(1, keep)),
          batch_(std::max<size_t>(1, batch)), score_group_(std::min(batch_, kScoreGroup)),
          per_structure_(std::max<size_t>(1, per_structure)),
          per_cost_(std::max<size_t>(1, per_cost)), near_cost_(std::max(0.0, near_cost)),
          overlap_(overlap && queue.threaded()) {}
    ~BestChildren() { queue_.abandon(); } // queued scoring reads waiting_ and pending_
    BestChildren(const BestChildren &) = delete;
    BestChildren &operator=(const BestChildren &) = delete;

    /** Dropped states go back to `ahead` to be freed (null: freed here). */
    void set_ahead(ChildrenAhead *ahead) { ahead_ = ahead; }

    void add(StatePtr c) {
        pending_.push_back(std::move(c));
        if (pending_.size() - scored_ >= score_group_) score();
        if (pending_.size() >= batch_) next_batch();
    }

    /** Scores what is pending and keeps the best `keep` distinct states. */
    void flush() {
        score();
        queue_.drain();
        merge_waiting();
        scored_ = 0;
        if (pending_.empty()) return;
        merge(pending_);
    }

    size_t held() const { return best_.size() + waiting_.size() + pending_.size(); }
    bool empty() const { return best_.empty() && waiting_.empty() && pending_.empty(); }
    std::vector<StatePtr> take() {
        flush();
        return std::move(best_);
    }

private:
    /** The pending batch is full: merges the one before it (overlapping) or itself. */
    void next_batch() {
        score();
        scored_ = 0;
        if (!overlap_) {
            queue_.wait(ticket_);
            merge(pending_);
            return;
        }
        merge_waiting();
        waiting_ = std::move(pending_);
        waiting_ticket_ = ticket_;
        pending_.clear();
    }

    /** Merges the batch waiting for its scores, once they are in. */
    void merge_waiting() {
        if (waiting_.empty()) return;
        queue_.wait(waiting_ticket_);
        merge(waiting_);
    }

    /** Queues the scoring of the pending children not yet queued. */
    void score() {
        if (scored_ == pending_.size()) return;
        std::vector<State *> group;
        group.reserve(pending_.size() - scored_);
        for (size_t i = scored_; i < pending_.size(); i++)
            group.push_back(pending_[i].get());
        scored_ = pending_.size();
        ticket_ = queue_.push([this, group = std::move(group)] {
            auto t0 = std::chrono::steady_clock::now();
            eval_.evaluate(group);
            if (stats_) {
                stats_->seconds_evaluating +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                stats_->states_evaluated += int64_t(group.size());
            }
        });
    }

    /** Keeps the best `keep` distinct states of best_ and `batch` (scored; emptied). */
    void merge(std::vector<StatePtr> &batch) {
        for (StatePtr &c : batch)
            best_.push_back(std::move(c));
        batch.clear();
        std::sort(best_.begin(), best_.end(), better_state);
        // At most per_structure_ states of one placement structure, while others are left:
        // siblings that differ only in tilings score alike, and a beam full of them loses the
        // structures a producer decided later would have made cheaper.
        std::vector<StatePtr> kept, passed_over;
        // Duplicates: same hash and the same decisions (a hash collision is not a duplicate).
        std::map<uint64_t, std::vector<const State *>> seen;
        std::map<uint64_t, size_t> per_structure;
        // States of one predicted cost (sorted, so equal costs are adjacent).
        double run_cost = -1;
        size_t run = 0;
        for (StatePtr &c : best_) {
            if (kept.size() >= keep_) break;
            std::vector<const State *> &same_hash = seen[c->hash];
            if (std::any_of(same_hash.begin(), same_hash.end(),
                            [&](const State *o) { return o->decisions == c->decisions; }))
                continue; // a duplicate of a better state
            same_hash.push_back(c.get());
            if (c->cost > run_cost * (1 + near_cost_)) {
                run_cost = c->cost;
                run = 0;
            }
            if (++run > per_cost_) {
                passed_over.push_back(std::move(c));
                continue;
            }
            if (++per_structure[c->placement_hash] > per_structure_) {
                passed_over.push_back(std::move(c));
                continue;
            }
            kept.push_back(std::move(c));
        }
        for (StatePtr &c : passed_over) {
            if (kept.size() >= keep_) break;
            kept.push_back(std::move(c));
        }
        std::sort(kept.begin(), kept.end(), better_state);
        std::swap(best_, kept);
        if (ahead_) { // the dropped states the helper made are freed there
            for (StatePtr &c : passed_over)
                if (c) kept.push_back(std::move(c));
            ahead_->bury(kept);
        }
    }

    /** Children scored per StateEvaluator call: small enough that scoring keeps pace with
     * making them, large enough for a batched model. */
    static constexpr size_t kScoreGroup = 256;

    StateEvaluator &eval_;
    JobQueue &queue_;
    ChildrenAhead *ahead_ = nullptr;
    SearchStats *stats_;
    const size_t keep_, batch_, score_group_, per_structure_, per_cost_;
    /** Costs within this ratio of a run's first count as equal (0: exactly equal only). */
    const double near_cost_;
    const bool overlap_;
    /** The kept states; a full batch whose scoring may still run; the batch being filled. */
    std::vector<StatePtr> best_, waiting_, pending_;
    size_t scored_ = 0;           // pending_[0, scored_) are queued for scoring
    uint64_t ticket_ = 0;         // of the last scoring queued
    uint64_t waiting_ticket_ = 0; // of waiting_'s last scoring
};

} // namespace sextant::detail
