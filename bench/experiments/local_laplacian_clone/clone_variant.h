// The experiment's one clone (bench/experiments/local_laplacian_clone/run.sh): with bit 8,
// g_pyr_1 and its dx are cloned into g_pyr_2_dx (Halide 14 lowers one clone per Func) and
// computed per strip of g_pyr_2 on the stack, with g_pyr_2_dx there too.
#include "Halide.h"
#include <map>
inline void apply_variant(Halide::Pipeline pipeline, int v) {
    using namespace Halide;
    std::map<std::string, Func> funcs;
    for (Func out : pipeline.outputs())
        for (const auto &kv : Internal::find_transitive_calls(out.function()))
            funcs.emplace(kv.first, Func(kv.second));
    auto F = [&](const char *n) { return funcs.at(n); };
    Var x("x"), y("y"), k("k"), y_o("y_o"), y_i("y_i"), x_o("x_o");
    if (v & 8) {
        Func g1 = F("g_pyr_1"), g1dx = F("g_pyr_1_dx");
        Func g2 = F("g_pyr_2"), g2dx = F("g_pyr_2_dx");
        g2dx.compute_at(g2, y_o).store_in(MemoryType::Stack);
        Func cA = g1.clone_in(g2dx), cAdx = g1dx.clone_in(cA);
        cA.compute_at(g2, y_o).store_in(MemoryType::Stack).vectorize(x, 16);
        cAdx.compute_at(g2, y_o).store_in(MemoryType::Stack).vectorize(x, 16);
    }
}
