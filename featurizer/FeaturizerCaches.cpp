// The featurizer's caches (Featurizer.h): what a stage's loads and footprints depend on (its
// inline key), and the loads and regions every state with the same key shares. Called for
// every row the search scores; the caches are thread-safe.
#include "Featurizer.h"

#include "StageLoads.h"
#include "search/State.h"

#include <algorithm>
#include <mutex>

namespace sextant {

size_t Featurizer::KeyHash::operator()(const std::vector<int64_t> &k) const {
    uint64_t h = 0;
    for (int64_t v : k)
        h = hash_mix(h, uint64_t(v));
    return size_t(h);
}

void Featurizer::inline_key(const Decisions &d, const Stage &s, std::vector<int64_t> &key) const {
    // Called for every row the search scores: the walk's lists are this thread's scratch.
    thread_local std::vector<int> inlined, inside;
    thread_local std::vector<const Stage *> todo;
    inlined.clear();
    inside.clear();
    todo.assign(1, &s);
    while (!todo.empty()) {
        const Stage &t = *todo.back();
        todo.pop_back();
        for (int e : t.edges_in) {
            const Edge &edge = dag_.edges[size_t(e)];
            if (edge.kind != ProducerKind::Func || edge.producer == t.func) continue;
            if (!is_inlined(dag_, d, edge.producer)) {
                // Read through an inlined Func, a Func computed at the stage's own loops
                // changes its clamps (IndexClamp::reads_inside).
                const FuncSched &p = d[size_t(edge.producer)];
                if (t.func != s.func && p.placement == Placement::At && p.at_func == s.func &&
                    std::find(inside.begin(), inside.end(), edge.producer) == inside.end())
                    inside.push_back(edge.producer);
                continue;
            }
            if (std::find(inlined.begin(), inlined.end(), edge.producer) != inlined.end()) continue;
            inlined.push_back(edge.producer);
            todo.push_back(&dag_.stage(edge.producer, 0));
        }
    }
    std::sort(inlined.begin(), inlined.end());
    std::sort(inside.begin(), inside.end());
    key.clear();
    key.push_back(stage_id(s.func, s.index));
    key.insert(key.end(), inlined.begin(), inlined.end());
    if (!inside.empty()) {
        key.push_back(-2); // (ids are never negative: the Funcs computed inside follow)
        key.insert(key.end(), inside.begin(), inside.end());
    }
}

std::shared_ptr<const StageLoads>
Featurizer::stage_loads(const std::vector<int64_t> &key, const Decisions &d, const Stage &s) const {
    {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        auto it = loads_cache_.find(key);
        if (it != loads_cache_.end()) return it->second;
    }
    auto loads = std::make_shared<const StageLoads>(collect_stage_loads(dag_, d, s));
    std::lock_guard<std::mutex> lock(cache_mutex_);
    // A bound on what a long search holds (a few KiB an entry).
    if (loads_cache_.size() >= 50000) loads_cache_.clear();
    loads_cache_.emplace(key, loads);
    return loads;
}

std::shared_ptr<const std::vector<ProducerRegion>>
Featurizer::footprints(const std::vector<int64_t> &inline_key, const Decisions &d, const Stage &s,
                       const Box64 &box) const {
    // Most lookups hit: the key is built in this thread's scratch, copied only when stored.
    thread_local std::vector<int64_t> key;
    // Regions depend on the inlined set alone: the Funcs computed inside (after -2) stay out.
    key.assign(inline_key.begin(), std::find(inline_key.begin(), inline_key.end(), -2));
    key.push_back(-1); // (a stage id is never negative: the box starts here)
    for (const Interval64 &i : box) {
        key.push_back(i.min);
        key.push_back(i.max);
    }
    {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        auto it = regions_cache_.find(key);
        if (it != regions_cache_.end()) return it->second;
    }
    auto regions = std::make_shared<const std::vector<ProducerRegion>>(
        required_regions(dag_, d, {s.func, s.index}, box));
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (regions_cache_.size() >= 200000) regions_cache_.clear();
    regions_cache_.emplace(key, regions);
    return regions;
}

} // namespace sextant
