#include "RandomWorkload.h"

#include "random_pipelines/Planner.h"
#include "support/Errors.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sextant {

namespace rp = random_pipelines;

std::string random_identity(const RandomWorkload &w, int generator_version) {
    rp::PipelineSpec spec = rp::plan_random_pipeline(w.seed, w.options);
    char buf[96];
    std::snprintf(buf, sizeof buf, "random:seed=%llu:gen=%d:h=%016llx", (unsigned long long)w.seed,
                  generator_version,
                  (unsigned long long)rp::structural_hash(spec, generator_version));
    return buf;
}

bool same_pipeline_as_recorded(const RandomWorkload &w, const std::string &identity) {
    if (random_identity(w) == identity) return true;
    for (int v = 1; v < rp::kGeneratorVersion; v++)
        if (random_identity(w, v) == identity)
            return rp::built_alike_by_generator(rp::plan_random_pipeline(w.seed, w.options), v);
    return false;
}

namespace random_pipelines {
// The options as JSON, one key per field (of the same name), both ways (found by ADL).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RandomPipelineOptions, min_stages, max_stages, max_outputs,
                                   max_inputs, max_dims, min_extent, max_extent, min_channels,
                                   max_channels, max_input_points, max_work, max_tree_size,
                                   kind_weights)
} // namespace random_pipelines

std::string random_workload_json(const RandomWorkload &w) {
    nlohmann::json j = w.options;
    j["seed"] = w.seed;
    j["generator_version"] = rp::kGeneratorVersion;
    return j.dump();
}

RandomWorkload parse_random_workload_json(const std::string &json) {
    try {
        nlohmann::json j = nlohmann::json::parse(json);
        RandomWorkload w;
        w.seed = j.at("seed").get<uint64_t>();
        w.options = j.get<rp::RandomPipelineOptions>();
        return w;
    } catch (const nlohmann::json::exception &e) {
        throw UserError("malformed random workload options '" + json + "': " + e.what());
    }
}

namespace {
const char *const kHostKey = ";host=";
}

std::string machine_string(const MachineInfo &m, const std::string &host) {
    std::ostringstream o;
    o << "cores=" << m.parallelism << ";llc=" << m.last_level_cache_bytes
      << ";balance=" << m.balance;
    if (!host.empty()) {
        std::string h = host;
        for (char &c : h)
            if (c == ';' || c == '=') c = ',';
        o << kHostKey << h;
    }
    return o.str();
}

std::string machine_string_host(const std::string &s) {
    size_t at = s.find(kHostKey);
    return at == std::string::npos ? "" : s.substr(at + std::strlen(kHostKey));
}

std::string machine_string_params(const std::string &s) {
    return s.substr(0, s.find(kHostKey));
}

std::string host_processor(const std::string &host) {
    for (size_t at = host.find(", L"); at != std::string::npos; at = host.find(", L", at + 1))
        if (at + 3 < host.size() && std::isdigit(static_cast<unsigned char>(host[at + 3])))
            return host.substr(0, at);
    return host;
}

std::optional<WorkloadInfo> find_recorded_workload(SampleStore &store, const WorkloadInfo &w) {
    std::optional<WorkloadInfo> found = store.find_workload(w.identity, w.target, w.machine);
    if (!found && !machine_string_host(w.machine).empty())
        found = store.find_workload(w.identity, w.target, machine_string_params(w.machine));
    return found;
}

std::string host_description() {
    std::string model;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; model.empty() && std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        size_t colon = line.find(':');
        if (colon != std::string::npos)
            model = line.substr(line.find_first_not_of(" \t", colon + 1));
    }
    std::string caches;
    for (const HostCache &c : host_caches())
        if (c.type != "Instruction")
            caches += ", L" + std::to_string(c.level) + (c.type == "Data" ? "d " : " ") + c.size;
    if (model.empty() && caches.empty()) return "unknown";
    return (model.empty() ? "unknown processor" : model) + caches;
}

MachineInfo parse_machine_string(const std::string &s) {
    MachineInfo m;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, ';')) {
        size_t eq = item.find('=');
        if (eq == std::string::npos) continue;
        std::string k = item.substr(0, eq), v = item.substr(eq + 1);
        try {
            if (k == "cores")
                m.parallelism = std::stoi(v);
            else if (k == "llc")
                m.last_level_cache_bytes = std::stoll(v);
            else if (k == "balance")
                m.balance = std::stod(v);
        } catch (const std::exception &) {
            throw UserError("malformed machine string '" + s + "' (at '" + item + "')");
        }
    }
    return m;
}

} // namespace sextant
