#include "TrainingReplay.h"

#include "featurizer/Featurizer.h"
#include "search/SearchSpace.h"
#include "support/Errors.h"
#include "support/Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace sextant {

using json = nlohmann::json;

StatePtr prefix_state(const SearchSpace &space, const State &complete, int k) {
    const std::vector<int> &order = space.order();
    StatePtr s = space.initial_state();
    s->decisions = complete.decisions;
    for (size_t i = size_t(std::max(k, 0)); i < order.size(); i++)
        s->decisions.set(size_t(order[i]), FuncSched{});
    s->nests = build_all_nests(space.dag(), s->decisions);
    s->num_decided = std::min(std::max(k, 0), int(order.size()));
    return s;
}

namespace {

TrainingSample sample_of(const PipelineDag &dag, const Featurizer &featurizer, const State &s,
                         const std::string &pipeline, const MeasuredSchedule &r) {
    FeatureBatch b = featurizer.featurize_schedule(s.decisions, s.nests);
    TrainingSample t = make_training_sample(pipeline, b, 0, r.runtime_s);
    const AllocatorEstimate a = estimate_allocator(dag, s.decisions, s.nests);
    t.page_faults = a.page_faults;
    t.page_faults_nests = a.page_faults_nests;
    t.source = r.source;
    return t;
}

} // namespace

ReplayOutcome replay_measured(const PipelineDag &dag, const std::string &pipeline,
                              const std::vector<MeasuredSchedule> &records, int prefixes) {
    Featurizer featurizer(dag);
    SearchSpace space(dag);
    const int n = int(space.order().size());
    ReplayOutcome o;
    for (const MeasuredSchedule &r : records) {
        try {
            StatePtr s = space.replay(r.schedule_text);
            o.samples.push_back(sample_of(dag, featurizer, *s, pipeline, r));
            if (r.censored) o.censored++;
            int last = 0;
            for (int j = 1; j <= prefixes && !r.censored; j++) {
                const int k = int(int64_t(j) * n / (prefixes + 1));
                if (k <= last || k >= n) continue;
                last = k;
                TrainingSample t =
                    sample_of(dag, featurizer, *prefix_state(space, *s, k), pipeline, r);
                t.prefix_funcs = k;
                if (!t.schedule.empty()) o.samples.push_back(std::move(t));
            }
            if (!o.first) o.first = s;
        } catch (const std::exception &e) {
            o.skipped++;
            o.warnings.push_back("record " + std::to_string(r.id) + " of " + pipeline + ": " +
                                 e.what());
        }
    }
    return o;
}

void write_replay_request(const std::string &path, const std::string &pipeline,
                          const std::vector<MeasuredSchedule> &records) {
    json j = {{"pipeline", pipeline}, {"records", json::array()}};
    for (const MeasuredSchedule &r : records)
        j["records"].push_back({{"id", r.id},
                                {"schedule_text", r.schedule_text},
                                {"runtime_s", r.runtime_s},
                                {"source", r.source},
                                {"censored", r.censored}});
    write_file_atomically(path, j.dump() + "\n");
}

std::vector<MeasuredSchedule> read_replay_request(const std::string &path, std::string *pipeline) {
    std::ifstream in(path);
    if (!in) throw UserError("cannot read the training export request '" + path + "'");
    std::vector<MeasuredSchedule> out;
    try {
        json j = json::parse(in);
        *pipeline = j.at("pipeline").get<std::string>();
        for (const json &r : j.at("records")) {
            MeasuredSchedule m;
            m.id = r.at("id").get<int64_t>();
            m.schedule_text = r.at("schedule_text").get<std::string>();
            m.runtime_s = r.at("runtime_s").get<double>();
            m.source = r.value("source", "");
            m.censored = r.value("censored", false);
            if (!(m.runtime_s > 0))
                throw UserError("record " + std::to_string(m.id) + " has runtime_s " +
                                std::to_string(m.runtime_s) + " (must be > 0)");
            out.push_back(std::move(m));
        }
    } catch (const json::exception &e) {
        throw UserError("training export request '" + path + "' is malformed: " + e.what());
    } catch (const UserError &e) {
        throw UserError("training export request '" + path + "': " + e.what());
    }
    return out;
}

std::string encode_replay_reply(const ReplayOutcome &o) {
    std::string out;
    for (const TrainingSample &t : o.samples)
        out += "S " + sample_to_json_line(t) + "\n";
    for (std::string w : o.warnings) {
        for (char &ch : w)
            if (ch == '\n') ch = ' ';
        out += "W " + w + "\n";
    }
    out += "C " + std::to_string(o.skipped) + " " + std::to_string(o.censored) + "\n";
    return out;
}

ReplayReply decode_replay_reply(const std::string &text) {
    ReplayReply r;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("S ", 0) == 0) {
            r.sample_lines.push_back(line.substr(2));
        } else if (line.rfind("W ", 0) == 0) {
            r.warnings.push_back(line.substr(2));
        } else if (line.rfind("C ", 0) == 0) {
            std::istringstream in(line.substr(2));
            r.complete = bool(in >> r.skipped >> r.censored);
        }
    }
    return r;
}

} // namespace sextant
