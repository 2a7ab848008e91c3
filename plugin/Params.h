// Params: every Sextant option, documented field by field, parsed once per autoscheduler call
// from the environment (Halide 14 has no other channel). Adams2019's HL_* names are accepted
// where they mean the same; SEXTANT_* names are ours. Unknown SEXTANT_* keys and bad values are
// UserErrors. No other code reads the environment.
#pragma once

#include "search/BeamSearch.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sextant {

struct Params {
    /** The beam search's options, each settable from the environment:
     *  - beam_size: beam width, 1 = greedy (one pass). HL_BEAM_SIZE / SEXTANT_BEAM_SIZE.
     *  - num_passes: search passes (3), the first coarse, the second free, the rest refining.
     *    HL_NUM_PASSES / SEXTANT_NUM_PASSES.
     *  - random_dropout: percent chance to keep each candidate (100 = off).
     *    HL_RANDOM_DROPOUT / SEXTANT_RANDOM_DROPOUT.
     *  - seed: for dropout; same seed, same schedule. HL_SEED / SEXTANT_SEED.
     *  - memory_limit_bytes: prune schedules whose root allocations exceed this many bytes;
     *    0 = no limit. HL_AUTOSCHEDULE_MEMORY_LIMIT / SEXTANT_MEMORY_LIMIT.
     *  - memory_bytes: bytes the search may hold at once (states, scored children, caches);
     *    when a step would need more it narrows its batch, then its beam. 0 = no bound.
     *    Default 1 GiB. SEXTANT_SEARCH_MEMORY_LIMIT.
     *  - time_limit_s: seconds the autoscheduler may take, from its call to the end of the
     *    search (analysing the pipeline counts, so the search gets what is left); then the best
     *    complete schedule so far is applied (in the first pass, the rest of it is finished
     *    greedily) and the log says so. 0 = no limit. Default 30 (the search's own default is
     *    60): Halide then still lowers and compiles the scheduled pipeline in the generator
     *    (17 s for bench synthetic_200's 200 Funcs), and a user waits for both.
     *    SEXTANT_TIME_LIMIT.
     *  - space: what the search offers, from `search_space` below.
     * The others keep BeamSearchOptions' defaults. */
    BeamSearchOptions search = default_search();
    static BeamSearchOptions default_search();
    /** 0 quiet, 1 summary, 2 per-pass progress (stderr). HL_DEBUG_AUTOSCHEDULE / SEXTANT_DEBUG. */
    int debug = 0;
    /** "learned" (LibTorch net with weights) or "analytical". SEXTANT_COST_MODEL. The default
     * is CMake's SEXTANT_DEFAULT_COST_MODEL: "analytical" (its picks are the faster ones on the
     * bench, README), "learned" only in a build with LibTorch and weights/sextant.sxw. */
    std::string cost_model = default_cost_model();
    static std::string default_cost_model();
    /** Directory or file of learned weights (a net's, or an ensemble file naming several), or
     * several files separated by commas (scored as a cautious ensemble,
     * costmodel/EnsembleModel.h); empty = the shipped ones.
     * HL_WEIGHTS_DIR / SEXTANT_WEIGHTS. */
    std::string weights;
    /** How the learned model schedules (SEXTANT_LEARNED_SEARCH): 0 = it drives the beam
     * search itself ("beam"); N > 0 = the analytical model's search proposes N distinct
     * candidates (its beam pick, greedy pick and dropout picks, as the sampler makes them) and
     * the learned model picks among them (search/Candidates.h, ranked_pick). A number or
     * "beam". Default 4 (docs/COSTMODEL.md, "Ranking the analytical model's candidates"). */
    int learned_candidates = 4;
    /** Ranking those, the learned model leaves the analytical beam pick only for a candidate it
     * prices at least this fraction cheaper (SEXTANT_LEARNED_MARGIN, percent; default 5:
     * docs/COSTMODEL.md, "A trust margin"). */
    double learned_margin = 0.05;
    /** Ranking, also this many tweaks and as many mutations of the analytical pick
     * (SEXTANT_LEARNED_NEIGHBOURS; CandidateSearchOptions::neighbours). */
    int learned_neighbours = 0;
    /** The plugin's search is ranked_pick's: the learned model with learned_candidates > 0,
     * and no SEXTANT_CANDIDATES to write. */
    bool learned_ranks_candidates() const {
        return cost_model == "learned" && learned_candidates > 0 && candidates_dir.empty();
    }
    /** If set, write the PipelineDag as JSON to this path. SEXTANT_DUMP_DAG. */
    std::string dump_dag_path;
    /** If set, write the chosen schedule's ScheduleText to this path. SEXTANT_DUMP_SCHEDULE. */
    std::string dump_schedule_path;
    /** If set, apply this ScheduleText instead of searching (autotuning replays measured
     * schedules this way). SEXTANT_SCHEDULE_FILE. */
    std::string schedule_file;
    /** A directory holding request.json (costmodel/TrainingReplay.h): re-featurize its measured
     * ScheduleTexts with this pipeline's DAG, write the training samples to reply.txt there,
     * and apply the first text that replays instead of searching. sextant-sample
     * --export-training sets it for workloads of kind "user" (autotuning runs), whose pipeline
     * only their generator builds. SEXTANT_EXPORT_TRAINING. */
    std::string export_training_dir;
    /** A ScheduleText the search follows and reports on at every step (BeamSearchOptions::
     * trace): why the search misses a schedule. SEXTANT_TRACE_SCHEDULE. */
    std::string trace_file;
    /** Score every child whole and count the siblings (State::siblings) whose other Funcs'
     * scores differ from the sibling the search takes them from: the check behind that
     * shortcut (docs/SEARCH.md). SEXTANT_CHECK_SIBLINGS=1. */
    bool check_siblings = false;
    /** After the beam search, polish its pick (search/Polish.h): each stage's short pure loop
     * moved inside its vectors where the model predicts the whole schedule at least
     * `polish_margin` cheaper (docs/SEARCH.md, "Polish"). On by default since session 48;
     * SEXTANT_POLISH=0 turns it off, SEXTANT_POLISH_MARGIN=N sets the margin in units of
     * 0.01% (default 50, i.e. 0.5%). */
    bool polish = true;
    double polish_margin = 0.005;
    /** If set, search several distinct candidate schedules (the beam-search best first, then a
     * greedy one and dropout searches) and write them with their predicted runtimes to
     * DIR/candidates.jsonl; the first is applied as usual. Autotuning uses this to propose
     * schedules without compiling them. SEXTANT_CANDIDATES. */
    std::string candidates_dir;
    /** Changes to what the search offers and the caps that thin it: "key=value,...", the
     * fields of SearchSpaceOptions (search/SearchSpace.h; docs/SEARCH.md lists them),
     * e.g. "split_factors=2/4/8/16:8,large_pipeline_funcs=200". SEXTANT_SEARCH_SPACE. The text
     * as given, for the log: parse() applies it to `search.space`, which is what the search
     * reads (setting this field afterwards changes nothing). */
    std::string search_space;
    /** How many distinct candidates to write. SEXTANT_NUM_CANDIDATES. */
    int num_candidates = 16;
    /** Beam width of the candidates' dropout searches. SEXTANT_CANDIDATE_BEAM_SIZE. */
    int candidate_beam_size = 4;
    /** With SEXTANT_CANDIDATES: ScheduleText files (the best measured schedules) whose
     * mutations are proposed too (one Func re-placed or re-tiled, the rest completed by the
     * model; search/Candidates.h). SEXTANT_MUTATE, comma-separated. */
    std::vector<std::string> mutate_files;
    /** How many mutations, spread over the files. SEXTANT_NUM_MUTATIONS. */
    int num_mutations = 6;
    /** How many tweaks of the first file (CandidateSearchOptions::tweaks).
     * SEXTANT_NUM_TWEAKS. */
    int num_tweaks = 6;

    /** Parses `env` (name -> value); throws UserError on unknown SEXTANT_* keys or bad values. */
    static Params parse(const std::map<std::string, std::string> &env);
    /** parse() over the process environment. */
    static Params from_environment();
    /** The search's options (beam, passes, dropout, seed, memory and time limits, cost model,
     * search space, weights) as one line of key=value pairs, for the debug log; the file and
     * candidate options are left out. */
    std::string describe() const;
};

/** A SEXTANT_LEARNED_SEARCH value (also sextant-sample's --regret-learned-search): "beam" is
 * 0, a count of candidates in [1, 1000] itself; anything else nullopt. */
std::optional<int> parse_learned_search(const std::string &v);

} // namespace sextant
