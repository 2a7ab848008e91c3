#include "StorageOrder.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <regex>

namespace sextant {

using namespace Halide;
using Halide::Internal::Function;

namespace {

/** The dimension of `f` a read moves at unit slope along the reading stage's innermost storage
 * loop, when it is the only one that moves; nullopt when the read is not that simple. */
std::optional<int> dimension_along_vectors(const Stage &s, const Load &l) {
    int vector_loop = -1;
    for (size_t i = 0; i < s.loops.size(); i++)
        if (s.loops[i].func_dim == 0) vector_loop = int(i);
    if (vector_loop < 0) return std::nullopt;
    std::optional<int> moved;
    for (int p = 0; p < l.producer_dims; p++) {
        const JacobianEntry &e = l.at(p, vector_loop);
        if (e.affine && e.num == 0) continue;
        if (moved || !e.affine || e.num != e.den) return std::nullopt;
        moved = p;
    }
    return moved;
}

} // namespace

bool is_inline_reduction(const std::string &name) {
    static const std::regex names("(sum|product|maximum|minimum|argmax|argmin)(\\$[0-9]+)?");
    return std::regex_match(name, names);
}

std::map<std::string, std::vector<std::string>> transposed_storage(const PipelineDag &dag) {
    std::map<std::string, std::vector<std::string>> orders;
    for (const FuncNode &f : dag.funcs) {
        if (f.is_output || f.dims.size() < 2 || f.stages.size() != 2 ||
            !is_inline_reduction(f.name))
            continue;
        std::optional<int> across; // the dimension every read moves along its vectors
        bool simple = true;
        int reads = 0;
        for (const FuncNode &c : dag.funcs) {
            if (c.id == f.id) continue;
            for (const Stage &s : c.stages)
                for (const Load &l : s.loads) {
                    if (l.kind != ProducerKind::Func || l.producer != f.id) continue;
                    reads++;
                    const std::optional<int> d = dimension_along_vectors(s, l);
                    simple = simple && d && (!across || *across == *d);
                    if (d) across = d;
                }
        }
        if (!simple || reads == 0 || !across || *across == 0) continue;
        std::vector<std::string> order = f.dims;
        std::rotate(order.begin(), order.begin() + *across, order.begin() + *across + 1);
        orders.emplace(f.name, order);
    }
    return orders;
}

void reorder_storage(const std::map<std::string, std::vector<std::string>> &orders,
                     const std::map<std::string, Func> &funcs) {
    for (const auto &[name, order] : orders) {
        Func f = funcs.at(name);
        std::vector<Var> vars(order.begin(), order.end());
        f.reorder_storage(vars);
        std::vector<VarOrRVar> loops(vars.begin(), vars.end());
        f.reorder(loops);
        for (int u = 0; u < f.num_update_definitions(); u++) {
            // An update's pure loops are the vars standing alone in their own place.
            std::vector<VarOrRVar> pure;
            const std::vector<Expr> &args = f.function().update(u).args();
            for (const Var &v : vars)
                for (size_t a = 0; a < args.size(); a++)
                    if (const auto *var = args[a].as<Internal::Variable>();
                        var && var->name == v.name() && f.args()[a].name() == v.name())
                        pure.emplace_back(v);
            if (pure.size() > 1) f.update(u).reorder(pure);
        }
    }
}

std::vector<int> storage_positions(const Function &f) {
    const std::vector<std::string> &args = f.args();
    std::vector<int> pos(args.size());
    std::iota(pos.begin(), pos.end(), 0);
    const std::vector<Internal::StorageDim> &storage = f.schedule().storage_dims();
    if (storage.size() != args.size()) return pos;
    for (size_t s = 0; s < storage.size(); s++)
        for (size_t a = 0; a < args.size(); a++)
            if (storage[s].var == args[a]) pos[a] = int(s);
    return pos;
}

std::vector<Expr> in_storage_order(const std::vector<Expr> &args,
                                   const std::vector<int> &positions) {
    std::vector<Expr> stored(args.size());
    for (size_t a = 0; a < args.size(); a++)
        stored[a < positions.size() ? size_t(positions[a]) : a] = args[a];
    return stored;
}

} // namespace sextant
