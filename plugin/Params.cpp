#include "Params.h"

#include "search/SearchSpace.h"
#include "support/Args.h"
#include "support/Errors.h"

#include <functional>
#include <sstream>

extern char **environ;

namespace sextant {

namespace {

int64_t parse_int(const std::string &key, const std::string &v, int64_t lo, int64_t hi) {
    size_t used = 0;
    int64_t x = 0;
    try {
        x = std::stoll(v, &used);
    } catch (...) {
        used = 0;
    }
    if (used == 0 || used != v.size() || x < lo || x > hi) {
        throw UserError(key + "=" + v + " is not an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
    }
    return x;
}

} // namespace

std::string Params::default_cost_model() {
#ifdef SEXTANT_DEFAULT_COST_MODEL
    return SEXTANT_DEFAULT_COST_MODEL;
#else
    return "analytical";
#endif
}

BeamSearchOptions Params::default_search() {
    BeamSearchOptions o;
    o.time_limit_s = 30;
    // On since session 42 (docs/SEARCH.md, "Near-equal costs"): the misprice that kept it off
    // (random pipeline 200127) is priced now.
    o.near_cost = BeamSearchOptions::kNearCost;
    // On since session 50 (docs/SEARCH.md, "The lookahead pass"): bench nl_means and
    // local_laplacian run 0.55x and 0.87x, no other pick moves.
    o.lookahead_pass = true;
    // On since session 51 (docs/SEARCH.md, "The allocator outlook pass").
    o.allocator_outlook_pass = true;
    return o;
}

Params Params::parse(const std::map<std::string, std::string> &env) {
    Params p;
    using Setter = std::function<void(const std::string &key, const std::string &value)>;
    const std::map<std::string, Setter> ours = {
        {"BEAM_SIZE",
         [&](auto &k, auto &v) { p.search.beam_size = int(parse_int(k, v, 1, 4096)); }},
        {"NUM_PASSES",
         [&](auto &k, auto &v) { p.search.num_passes = int(parse_int(k, v, 1, 100)); }},
        {"KEEP_STRUCTURES",
         [&](auto &k, auto &v) { p.search.keep_structures = int(parse_int(k, v, 1, 4096)); }},
        {"STRUCTURE_SHARE",
         [&](auto &k, auto &v) { p.search.structure_share = parse_int(k, v, 0, 100) / 100.0; }},
        {"NEAR_COST_PASS",
         [&](auto &k, auto &v) {
             p.search.near_cost = parse_int(k, v, 0, 1) ? BeamSearchOptions::kNearCost : 0.0;
         }},
        {"LOOKAHEAD_PASS",
         [&](auto &k, auto &v) { p.search.lookahead_pass = parse_int(k, v, 0, 1) != 0; }},
        {"LOOKAHEAD_WIDTH",
         [&](auto &k, auto &v) { p.search.lookahead_width = int(parse_int(k, v, 1, 64)); }},
        {"LOOKAHEAD_MARGIN",
         [&](auto &k, auto &v) { p.search.lookahead_margin = parse_int(k, v, 0, 100) / 100.0; }},
        {"ALLOCATOR_OUTLOOK_PASS",
         [&](auto &k, auto &v) { p.search.allocator_outlook_pass = parse_int(k, v, 0, 1) != 0; }},
        {"RANDOM_DROPOUT",
         [&](auto &k, auto &v) { p.search.random_dropout = int(parse_int(k, v, 1, 100)); }},
        {"SEED",
         [&](auto &k, auto &v) { p.search.seed = uint64_t(parse_int(k, v, 0, INT64_MAX)); }},
        {"MEMORY_LIMIT",
         [&](auto &k, auto &v) {
             p.search.memory_limit_bytes = double(parse_int(k, v, -1, INT64_MAX));
         }},
        {"SEARCH_MEMORY_LIMIT",
         [&](auto &k, auto &v) { p.search.memory_bytes = double(parse_int(k, v, 0, INT64_MAX)); }},
        {"TIME_LIMIT",
         [&](auto &k, auto &v) { p.search.time_limit_s = double(parse_int(k, v, 0, 1000000)); }},
        {"DEBUG", [&](auto &k, auto &v) { p.debug = int(parse_int(k, v, 0, 10)); }},
        {"COST_MODEL",
         [&](auto &k, auto &v) {
             if (v != "learned" && v != "analytical")
                 throw UserError(k + "=" + v + ": expected 'learned' or 'analytical'");
             p.cost_model = v;
         }},
        {"WEIGHTS", [&](auto &, auto &v) { p.weights = v; }},
        {"LEARNED_SEARCH",
         [&](auto &k, auto &v) {
             const std::optional<int> n = parse_learned_search(v);
             if (!n) throw UserError(k + "=" + v + " is not an integer in [1, 1000] or 'beam'");
             p.learned_candidates = *n;
         }},
        {"LEARNED_MARGIN",
         [&](auto &k, auto &v) { p.learned_margin = parse_int(k, v, 0, 100) / 100.0; }},
        {"LEARNED_NEIGHBOURS",
         [&](auto &k, auto &v) { p.learned_neighbours = parse_int(k, v, 0, 1000); }},
        {"DUMP_DAG", [&](auto &, auto &v) { p.dump_dag_path = v; }},
        {"DUMP_SCHEDULE", [&](auto &, auto &v) { p.dump_schedule_path = v; }},
        {"SCHEDULE_FILE", [&](auto &, auto &v) { p.schedule_file = v; }},
        {"EXPORT_TRAINING", [&](auto &, auto &v) { p.export_training_dir = v; }},
        {"TRACE_SCHEDULE", [&](auto &, auto &v) { p.trace_file = v; }},
        {"CHECK_SIBLINGS",
         [&](auto &k, auto &v) { p.check_siblings = parse_int(k, v, 0, 1) != 0; }},
        {"POLISH", [&](auto &k, auto &v) { p.polish = parse_int(k, v, 0, 1) != 0; }},
        {"POLISH_MARGIN",
         [&](auto &k, auto &v) { p.polish_margin = parse_int(k, v, 0, 10000) / 10000.0; }},
        {"CANDIDATES", [&](auto &, auto &v) { p.candidates_dir = v; }},
        {"SEARCH_SPACE",
         [&](auto &k, auto &v) {
             SearchSpaceOptions space;
             std::string e = parse_search_space_options(v, &space);
             if (!e.empty()) throw UserError(k + "=" + v + ": " + e);
             p.search.space = space;
             p.search_space = v;
         }},
        {"NUM_CANDIDATES",
         [&](auto &k, auto &v) { p.num_candidates = int(parse_int(k, v, 1, 10000)); }},
        {"CANDIDATE_BEAM_SIZE",
         [&](auto &k, auto &v) { p.candidate_beam_size = int(parse_int(k, v, 1, 4096)); }},
        {"MUTATE", [&](auto &, auto &v) { p.mutate_files = split_list(v); }},
        {"NUM_MUTATIONS",
         [&](auto &k, auto &v) { p.num_mutations = int(parse_int(k, v, 0, 10000)); }},
        {"NUM_TWEAKS", [&](auto &k, auto &v) { p.num_tweaks = int(parse_int(k, v, 0, 10000)); }},
    };
    // Adams2019's names with the same meaning.
    const std::map<std::string, std::string> adams = {
        {"HL_BEAM_SIZE", "BEAM_SIZE"},           {"HL_NUM_PASSES", "NUM_PASSES"},
        {"HL_RANDOM_DROPOUT", "RANDOM_DROPOUT"}, {"HL_SEED", "SEED"},
        {"HL_WEIGHTS_DIR", "WEIGHTS"},           {"HL_AUTOSCHEDULE_MEMORY_LIMIT", "MEMORY_LIMIT"},
        {"HL_DEBUG_AUTOSCHEDULE", "DEBUG"},
    };
    for (const auto &kv : adams) {
        auto it = env.find(kv.first);
        if (it != env.end() && !it->second.empty()) ours.at(kv.second)(kv.first, it->second);
    }
    // SEXTANT_* names win over HL_* ones.
    for (const auto &kv : env) {
        const std::string prefix = "SEXTANT_";
        if (kv.first.compare(0, prefix.size(), prefix) != 0) continue;
        std::string key = kv.first.substr(prefix.size());
        auto it = ours.find(key);
        if (it == ours.end()) {
            std::string known;
            for (const auto &o : ours)
                known += " SEXTANT_" + o.first;
            throw UserError("Unknown option " + kv.first + "; Sextant's options are:" + known);
        }
        it->second(kv.first, kv.second);
    }
    return p;
}

Params Params::from_environment() {
    std::map<std::string, std::string> env;
    for (char **e = environ; e && *e; e++) {
        std::string s = *e;
        size_t eq = s.find('=');
        if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
    }
    return parse(env);
}

std::string Params::describe() const {
    std::ostringstream o;
    o << "beam_size=" << search.beam_size << " num_passes=" << search.num_passes
      << " keep_structures=" << search.keep_structures
      << " structure_share=" << search.structure_share << " near_cost=" << search.near_cost
      << " lookahead_pass=" << search.lookahead_pass
      << " lookahead_width=" << search.lookahead_width
      << " lookahead_margin=" << search.lookahead_margin
      << " allocator_outlook_pass=" << search.allocator_outlook_pass << " polish=" << polish
      << " polish_margin=" << polish_margin << " random_dropout=" << search.random_dropout
      << " seed=" << search.seed << " memory_limit_bytes=" << search.memory_limit_bytes
      << " search_memory_bytes=" << search.memory_bytes << " time_limit_s=" << search.time_limit_s
      << " cost_model=" << cost_model
      << (cost_model == "learned"
              ? " learned_search=" +
                    (learned_candidates > 0
                         ? std::to_string(learned_candidates) + " candidates, margin " +
                               std::to_string(int(learned_margin * 100 + 0.5)) + "%" +
                               (learned_neighbours > 0
                                    ? ", neighbours " + std::to_string(learned_neighbours)
                                    : std::string())
                         : std::string("beam"))
              : std::string())
      << (search_space.empty() ? "" : " search_space=" + search_space)
      << " weights=" << (weights.empty() ? "<shipped>" : weights);
    return o.str();
}

std::optional<int> parse_learned_search(const std::string &v) {
    if (v == "beam") return 0;
    size_t used = 0;
    int n = 0;
    try {
        n = std::stoi(v, &used);
    } catch (...) {
        return std::nullopt;
    }
    if (used != v.size() || n < 1 || n > 1000) return std::nullopt;
    return n;
}

} // namespace sextant
