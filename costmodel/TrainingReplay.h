// TrainingReplay: measured ScheduleTexts of one pipeline -> TrainingSamples with today's
// featurizer (replay each text in the pipeline's SearchSpace, featurize the state, add its
// allocator estimate). Two callers: the sampler, for random pipelines it rebuilds itself, and
// the plugin inside a user's generator (SEXTANT_EXPORT_TRAINING), for pipelines only their
// generator can build. Between the two processes the records and the samples travel as text:
// a request (JSON) and the reply lines below.
#pragma once

#include "costmodel/TrainingData.h"
#include "dag/PipelineDag.h"
#include "search/State.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {

class SearchSpace;

/** One measurement to export. A censored one (timed out) carries the runtime it is exported
 * with (the caller's choice: twice its pipeline's slowest finished schedule). */
struct MeasuredSchedule {
    int64_t id = 0;
    std::string schedule_text;
    double runtime_s = 0;
    std::string source;
    bool censored = false;
};

struct ReplayOutcome {
    std::vector<TrainingSample> samples;
    int64_t skipped = 0;               ///< records whose text did not replay on this pipeline
    int64_t censored = 0;              ///< censored records among `samples`
    std::vector<std::string> warnings; ///< one per skipped record, naming it
    /** The state of the first record that replayed (null if none), scored by nothing yet:
     * what the plugin applies after an export. */
    StatePtr first;
};

/** Each record that replays becomes a sample; with `prefixes` > 0 also that many of its
 * partial states (TrainingSample::prefix_funcs), at depths spread evenly over the search's
 * decision order (k = j * n / (prefixes + 1), j = 1..prefixes, distinct, 0 < k < n), each with
 * the record's runtime. Censored records give no prefixes. */
ReplayOutcome replay_measured(const PipelineDag &dag, const std::string &pipeline,
                              const std::vector<MeasuredSchedule> &records, int prefixes = 0);

/** The state `complete` was after its first `k` Funcs of `space`'s decision order were
 * decided: the later ones undecided, the nests rebuilt (a Func's nest depends only on the
 * Funcs decided before it). */
StatePtr prefix_state(const SearchSpace &space, const State &complete, int k);

/** The request file: {"pipeline": ..., "records": [{"id","schedule_text","runtime_s",
 * "source","censored"}, ...]}. read_ throws UserError naming the file on a malformed one. */
void write_replay_request(const std::string &path, const std::string &pipeline,
                          const std::vector<MeasuredSchedule> &records);
std::vector<MeasuredSchedule> read_replay_request(const std::string &path, std::string *pipeline);

/** The reply: "S <sample JSON line>" per sample, "W <warning>" per warning (newlines made
 * spaces), and a last line "C <skipped> <censored>". A reply without its C line was cut off. */
std::string encode_replay_reply(const ReplayOutcome &o);
struct ReplayReply {
    std::vector<std::string> sample_lines; ///< sample JSON lines, as written
    std::vector<std::string> warnings;
    int64_t skipped = 0, censored = 0;
    bool complete = false; ///< the C line was there
};
ReplayReply decode_replay_reply(const std::string &text);

} // namespace sextant
