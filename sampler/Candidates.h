// Candidates: the distinct schedules the sampler measures for one pipeline — the beam-search
// best, the greedy one, then greedy searches with random dropout under successive seeds,
// deduplicated by ScheduleText hash. Deterministic: the same DAG and options give the same
// list in the same order (so a resumed run asks for the same schedules). No Halide.
#pragma once

#include "plugin/dag/PipelineDag.h"

#include <string>
#include <vector>

namespace sextant {

struct CandidateOptions {
    /** Distinct schedules wanted. */
    int count = 10;
    /** Beam width and passes of the first ("beam") candidate: the plugin's defaults, so the
     * data holds the schedules the plugin picks. About 2 s of search per pipeline on a
     * default-sized random pipeline (beam 8, 2 passes: 0.2 s, but often a 2-5x slower
     * schedule); amortized over `count` measurements. See docs/SAMPLING.md. */
    int beam_size = 32;
    int num_passes = 5;
    /** Beam width of the dropout searches (1 = greedy with random dropout, as Adams2019's
     * autotuning loop samples). */
    int dropout_beam_size = 1;
    /** Searches to try before giving up on reaching `count` distinct schedules. */
    int max_attempts_factor = 4;
};

struct Candidate {
    std::string source; ///< "beam", "greedy" or "dropout:<percent>:<seed>"
    std::string text;   ///< ScheduleText
    std::string hash;   ///< schedule_hash(text)
};

/** Up to opt.count distinct candidates for `dag`, scored with the analytical cost model.
 * Searches that find no schedule are skipped. */
std::vector<Candidate> make_candidates(const PipelineDag &dag, const CandidateOptions &opt);

} // namespace sextant
