#include "ModelChoice.h"

#include "costmodel/EnsembleModel.h"
#include "costmodel/ModelEvaluator.h"
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

} // namespace

std::unique_ptr<CostModel> make_cost_model(const std::string &name, const std::string &weights,
                                           const MachineInfo &m) {
    const double llc = double(m.last_level_cache_bytes);
    if (name == "analytical") return std::make_unique<AnalyticalModel>(m.parallelism, llc);
    if (weights.find(',') == std::string::npos)
        return load_learned_model(resolve_weights(weights), m.parallelism, llc);
    std::vector<std::unique_ptr<CostModel>> members;
    std::stringstream list(weights);
    for (std::string item; std::getline(list, item, ',');) {
        if (item.empty())
            throw UserError("empty entry in the weights list '" + weights +
                            "' (files separated by single commas)");
        if (item == "analytical")
            members.push_back(std::make_unique<AnalyticalModel>(m.parallelism, llc));
        else
            members.push_back(load_learned_model(resolve_weights(item), m.parallelism, llc));
    }
    return std::make_unique<EnsembleModel>(std::move(members));
}

RankedPick rank_analytical_candidates(const PipelineDag &dag, const SearchSpace &space,
                                      StateEvaluator &rank, int count,
                                      const CandidateSearchOptions &opt, SearchStats *stats) {
    AnalyticalModel proposer(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    CandidateSearchOptions co = opt;
    co.count = count;
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
