// SearchSpaceOptions from text: the plugin's SEXTANT_SEARCH_SPACE, so that the caps and size
// lists that thin the search can be changed without a rebuild (and measured).
#include "SearchSpace.h"

#include "support/Args.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace sextant {

namespace {

bool parse_int(const std::string &s, int64_t *v) {
    if (s.empty()) return false;
    char *end = nullptr;
    errno = 0;
    long long x = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *v = x;
    return true;
}

bool parse_double(const std::string &s, double *v) {
    if (s.empty()) return false;
    char *end = nullptr;
    errno = 0;
    double x = std::strtod(s.c_str(), &end);
    if (errno != 0 || *end != '\0') return false;
    *v = x;
    return true;
}

/** "4/8/16": positive sizes, at least one. */
std::string parse_sizes(const std::string &s, std::vector<int64_t> *out) {
    std::vector<int64_t> v;
    for (const std::string &part : split_list(s, '/')) {
        int64_t x = 0;
        if (!parse_int(part, &x) || x < 1 || x > (int64_t(1) << 20))
            return "'" + part + "' is not a size from 1 to 1048576";
        v.push_back(x);
    }
    if (v.empty()) return "an empty size list";
    *out = std::move(v);
    return "";
}

} // namespace

std::string parse_search_space_options(const std::string &text, SearchSpaceOptions *opt) {
    SearchSpaceOptions o = *opt;
    using Setter = std::function<std::string(const std::string &)>;
    auto integer = [](int *field, int64_t lo) -> Setter {
        return [field, lo](const std::string &v) -> std::string {
            int64_t x = 0;
            if (!parse_int(v, &x) || x < lo || x > (int64_t(1) << 30))
                return "expects an integer from " + std::to_string(lo);
            *field = int(x);
            return "";
        };
    };
    auto real = [](double *field) -> Setter {
        return [field](const std::string &v) -> std::string {
            double x = 0;
            if (!parse_double(v, &x) || !(x >= 0)) return "expects a number >= 0";
            *field = x;
            return "";
        };
    };
    auto flag = [](bool *field) -> Setter {
        return [field](const std::string &v) -> std::string {
            if (v == "1" || v == "true")
                *field = true;
            else if (v == "0" || v == "false")
                *field = false;
            else
                return "expects 0, 1, true or false";
            return "";
        };
    };
    auto sizes = [](std::vector<int64_t> *field) -> Setter {
        return [field](const std::string &v) { return parse_sizes(v, field); };
    };
    auto size_list = [](SizeList *field) -> Setter {
        return [field](const std::string &v) -> std::string {
            std::vector<std::string> parts = split_list(v, ':');
            if (parts.size() > 2) return "expects FINE or FINE:COARSE (sizes joined by '/')";
            SizeList l;
            std::string e = parse_sizes(parts[0], &l.fine);
            if (e.empty()) e = parts.size() == 2 ? parse_sizes(parts[1], &l.coarse) : "";
            if (!e.empty()) return e;
            if (parts.size() == 1) l.coarse = field->coarse;
            *field = l;
            return "";
        };
    };
    const std::map<std::string, Setter> keys = {
        {"tilings_per_stage", integer(&o.tilings_per_stage, 1)},
        {"tilings_per_stage_coarse", integer(&o.tilings_per_stage_coarse, 1)},
        {"tilings_other_stages", integer(&o.tilings_other_stages, 1)},
        {"tilings_other_stages_coarse", integer(&o.tilings_other_stages_coarse, 1)},
        {"combos_per_placement", integer(&o.combos_per_placement, 1)},
        {"combos_per_placement_coarse", integer(&o.combos_per_placement_coarse, 1)},
        {"max_loop_option_product", integer(&o.max_loop_option_product, 0)},
        {"retile_combos_divisor", integer(&o.retile_combos_divisor, 1)},
        {"max_fallback_children", integer(&o.max_fallback_children, 1)},
        {"max_unrolled_nodes", real(&o.max_unrolled_nodes)},
        {"retile_consumers", flag(&o.retile_consumers)},
        {"retile_inside_max_points", integer(&o.retile_inside_max_points, 0)},
        {"register_blocks", flag(&o.register_blocks)},
        {"register_tiles", flag(&o.register_tiles)},
        {"reduction_outside", flag(&o.reduction_outside)},
        {"slide_in_split_tiles", flag(&o.slide_in_split_tiles)},
        {"slide_in_updates", flag(&o.slide_in_updates)},
        {"unroll_inside", flag(&o.unroll_inside)},
        {"slide_strips", flag(&o.slide_strips)},
        {"strip_rows", size_list(&o.strip_rows)},
        {"vector_splits", size_list(&o.vector_splits)},
        {"split_factors", size_list(&o.split_factors)},
        {"vector_splits_large", size_list(&o.vector_splits_large)},
        {"split_factors_large", size_list(&o.split_factors_large)},
        {"retile_vector_splits", size_list(&o.retile_vector_splits)},
        {"retile_split_factors", size_list(&o.retile_split_factors)},
        {"band_tiles", sizes(&o.band_tiles)},
        {"reduction_chunks", size_list(&o.reduction_chunks)},
        {"register_block_points", size_list(&o.register_block_points)},
        {"large_pipeline_funcs", integer(&o.large_pipeline_funcs, 0)},
        {"large_max_nest_depth", integer(&o.large_max_nest_depth, 0)},
        {"large_max_funcs_per_site", integer(&o.large_max_funcs_per_site, 0)},
        {"max_inlined_body_nodes", real(&o.max_inlined_body_nodes)},
        {"unroll_budget_funcs", real(&o.unroll_budget_funcs)},
    };
    for (const std::string &item : split_list(text, ',')) {
        if (item.empty()) continue;
        size_t eq = item.find('=');
        if (eq == std::string::npos) return "'" + item + "' is not key=value";
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        auto it = keys.find(key);
        if (it == keys.end()) {
            std::string known;
            for (const auto &k : keys)
                known += (known.empty() ? "" : ", ") + k.first;
            return "unknown key '" + key + "' (known: " + known + ")";
        }
        std::string e = it->second(value);
        if (!e.empty()) return key + ": " + e + " (got '" + value + "')";
    }
    *opt = std::move(o);
    return "";
}

} // namespace sextant
