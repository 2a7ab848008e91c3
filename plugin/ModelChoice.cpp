#include "ModelChoice.h"

#include "costmodel/EnsembleModel.h"
#include "costmodel/ModelEvaluator.h"
#include "costmodel/WeightsFile.h"
#include "support/Errors.h"
#include "support/Files.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace sextant {

std::string default_weights_path() {
    const std::string dir =
        directory_of_binary_holding(reinterpret_cast<const void *>(&default_weights_path));
    if (!dir.empty()) {
        const std::string installed = dir + SEXTANT_INSTALLED_WEIGHTS_RELATIVE;
        if (std::ifstream(installed).good()) return installed;
    }
    return SEXTANT_SOURCE_WEIGHTS;
}

namespace {

std::string resolve_weights(std::string path) {
    if (path.empty()) path = default_weights_path();
    if (path.back() == '/') path += "sextant.sxw";
    if (std::ifstream(path + "/sextant.sxw").good()) path += "/sextant.sxw";
    if (!std::ifstream(path).good()) {
        throw UserError("no learned weights at '" + path +
                        "'. Train some with sextant-train and point SEXTANT_WEIGHTS (or "
                        "HL_WEIGHTS_DIR) at them, or set SEXTANT_COST_MODEL=analytical to use "
                        "the analytical model.");
    }
    return path;
}

/** One member of an ensemble (a weights file's or a comma list's): the analytical model or a
 * net. */
std::unique_ptr<CostModel> load_member(const std::string &item, const MachineInfo &m) {
    if (item == "analytical")
        return std::make_unique<AnalyticalModel>(m.parallelism, double(m.last_level_cache_bytes));
    return load_learned_model(item, m.parallelism, double(m.last_level_cache_bytes));
}

/** The model of one weights path: a net, or the ensemble an ensemble file names (whose
 * members must be nets or "analytical"). */
std::unique_ptr<CostModel> load_weights(const std::string &weights, const MachineInfo &m) {
    const std::string path = resolve_weights(weights);
    const std::optional<EnsembleSpec> spec = read_ensemble_file(path);
    if (!spec) return load_member(path, m);
    std::vector<std::unique_ptr<CostModel>> members;
    for (const std::string &item : spec->members) {
        try {
            if (item != "analytical" && read_ensemble_file(item))
                throw UserError("it is an ensemble itself; name its members instead");
            members.push_back(load_member(item, m));
        } catch (const UserError &e) {
            throw UserError("ensemble weights file '" + path + "', member '" + item +
                            "': " + e.what());
        }
    }
    return std::make_unique<EnsembleModel>(std::move(members), spec->caution);
}

} // namespace

std::unique_ptr<CostModel> make_cost_model(const std::string &name, const std::string &weights,
                                           const MachineInfo &m) {
    if (name == "analytical")
        return std::make_unique<AnalyticalModel>(m.parallelism, double(m.last_level_cache_bytes));
    if (weights.find(',') == std::string::npos) return load_weights(weights, m);
    std::vector<std::unique_ptr<CostModel>> members;
    std::stringstream list(weights);
    for (std::string item; std::getline(list, item, ',');) {
        if (item.empty())
            throw UserError("empty entry in the weights list '" + weights +
                            "' (files separated by single commas)");
        members.push_back(item == "analytical" ? load_member(item, m) : load_weights(item, m));
    }
    return std::make_unique<EnsembleModel>(std::move(members));
}

RankedPick rank_analytical_candidates(const PipelineDag &dag, const SearchSpace &space,
                                      StateEvaluator &rank, int count,
                                      const CandidateSearchOptions &opt, SearchStats *stats) {
    AnalyticalModel proposer(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    CandidateSearchOptions co = opt;
    co.count = count + 2 * opt.neighbours;
    co.dropout_beam_size = 1;
    return ranked_pick(
        dag, space,
        [&] {
            std::unique_ptr<StateEvaluator> e = std::make_unique<ModelEvaluator>(dag, proposer);
            return e;
        },
        rank, co, stats);
}

} // namespace sextant
