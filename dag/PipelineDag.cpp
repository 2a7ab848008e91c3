#include "PipelineDag.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace sextant {

const char *type_class_name(TypeClass t) {
    static const char *names[kNumTypeClasses] = {"bool", "u8",  "u16", "u32", "u64", "i8",
                                                 "i16",  "i32", "i64", "f16", "f32", "f64"};
    return names[int(t)];
}

int type_class_bytes(TypeClass t) {
    static const int bytes[kNumTypeClasses] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};
    return bytes[int(t)];
}

TypeClass type_class_of(bool is_float, bool is_uint, bool is_bool, int bits) {
    if (is_bool) return TypeClass::Bool;
    if (is_float) {
        if (bits == 16) return TypeClass::F16;
        if (bits == 32) return TypeClass::F32;
        if (bits == 64) return TypeClass::F64;
    } else if (is_uint) {
        if (bits == 1) return TypeClass::Bool;
        if (bits == 8) return TypeClass::U8;
        if (bits == 16) return TypeClass::U16;
        if (bits == 32) return TypeClass::U32;
        if (bits == 64) return TypeClass::U64;
    } else {
        if (bits == 8) return TypeClass::I8;
        if (bits == 16) return TypeClass::I16;
        if (bits == 32) return TypeClass::I32;
        if (bits == 64) return TypeClass::I64;
    }
    throw std::invalid_argument("unsupported scalar type with " + std::to_string(bits) + " bits");
}

const char *op_kind_name(OpKind k) {
    static const char *names[kNumOpKinds] = {
        "constant", "cast",      "variable",   "param",   "add",           "sub",    "mul",
        "div",      "mod",       "minmax",     "compare", "logical",       "select", "bitwise",
        "math",     "func_load", "input_load", "let",     "transcendental"};
    return names[int(k)];
}

double op_kind_cost(OpKind k) {
    switch (k) {
    case OpKind::Constant:
    case OpKind::Variable:
    case OpKind::Param:
    case OpKind::FuncLoad:
    case OpKind::InputLoad:
    case OpKind::Let:
        return 0;
    // x86 has no vector integer division: Halide lowers division by a constant to a
    // multiply-high and shifts, float division is one slow instruction.
    case OpKind::Div:
    case OpKind::Mod:
        return 4;
    case OpKind::Transcendental:
        return 20;
    default:
        return 1;
    }
}

int OpHistogram::widest_type_bytes() const {
    int widest = 1;
    for (size_t i = 0; i < counts.size(); i++)
        if (counts[i] > 0)
            widest = std::max(widest, type_class_bytes(TypeClass(int(i) % kNumTypeClasses)));
    return widest;
}

double OpHistogram::work() const {
    double w = 0;
    for (int k = 0; k < kNumOpKinds; k++)
        w += double(of_kind(OpKind(k))) * op_kind_cost(OpKind(k));
    return w;
}

int64_t OpHistogram::total() const {
    int64_t t = 0;
    for (int32_t c : counts)
        t += c;
    return t;
}

int64_t OpHistogram::of_kind(OpKind k) const {
    int64_t t = 0;
    for (int i = 0; i < kNumTypeClasses; i++)
        t += counts[int(k) * kNumTypeClasses + i];
    return t;
}

void OpHistogram::add(const OpHistogram &o, int64_t times) {
    for (size_t i = 0; i < counts.size(); i++)
        counts[i] += int32_t(o.counts[i] * times);
}

void Interval64::include(const Interval64 &o) {
    if (o.empty()) return;
    if (empty()) {
        *this = o;
        return;
    }
    min = std::min(min, o.min);
    max = std::max(max, o.max);
}

int64_t box_volume(const Box64 &b) {
    int64_t v = 1;
    for (const Interval64 &i : b)
        v *= std::max<int64_t>(0, i.extent());
    return v;
}

void Edge::required(const Box64 &consumer_loops, Box64 *out) const {
    int64_t mins[16], maxs[16];
    size_t n = std::min<size_t>(consumer_loops.size(), 16);
    for (size_t i = 0; i < n; i++) {
        mins[i] = consumer_loops[i].min;
        maxs[i] = consumer_loops[i].max;
    }
    out->resize(min.size());
    for (size_t d = 0; d < min.size(); d++) {
        (*out)[d].min = min[d].eval(mins, maxs);
        (*out)[d].max = max[d].eval(mins, maxs);
    }
}

int64_t Stage::points() const {
    int64_t p = 1;
    for (const LoopDim &l : loops)
        p *= std::max<int64_t>(0, l.range.extent());
    return p;
}

Box64 Stage::full_loop_box() const {
    Box64 b;
    b.reserve(loops.size());
    for (const LoopDim &l : loops)
        b.push_back(l.range);
    return b;
}

std::vector<HostCache> host_caches() {
    std::vector<HostCache> caches;
    for (int idx = 0; idx < 8; idx++) {
        std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx);
        std::ifstream lf(dir + "/level"), tf(dir + "/type"), sf(dir + "/size");
        HostCache c;
        if (!(lf >> c.level) || !(tf >> c.type) || !(sf >> c.size) || c.size.empty()) continue;
        c.bytes = std::atoll(c.size.c_str());
        if (c.size.back() == 'K')
            c.bytes <<= 10;
        else if (c.size.back() == 'M')
            c.bytes <<= 20;
        caches.push_back(c);
    }
    return caches;
}

MachineInfo host_machine(int parallelism, int64_t llc_bytes) {
    MachineInfo m;
    m.parallelism = parallelism > 0 ? parallelism : int(sysconf(_SC_NPROCESSORS_ONLN));
    if (m.parallelism < 1) m.parallelism = 1;
    // The size of the highest cache level sysfs reports for cpu0 (e.g. "32768K").
    int best_level = 0;
    for (const HostCache &c : host_caches()) {
        if (c.level <= best_level || c.bytes <= 0) continue;
        best_level = c.level;
        m.last_level_cache_bytes = c.bytes;
    }
    if (llc_bytes > 0) m.last_level_cache_bytes = llc_bytes;
    return m;
}

int FuncNode::element_bytes() const {
    int largest = 0;
    for (TypeClass t : value_types)
        largest = std::max(largest, type_class_bytes(t));
    return largest;
}

int MachineInfo::natural_vector_lanes(const FuncNode &f) const {
    int lanes = 1;
    for (TypeClass t : f.value_types) {
        const int bits = t == TypeClass::Bool ? 8 : type_class_bytes(t) * 8;
        lanes = std::max(lanes, vector_bits / bits);
    }
    return lanes;
}

int PipelineDag::find_func(const std::string &name) const {
    for (const FuncNode &f : funcs)
        if (f.name == name) return f.id;
    return -1;
}

void PipelineDag::link() {
    for (FuncNode &f : funcs) {
        f.edges_out.clear();
        f.consumers.clear();
        for (Stage &s : f.stages)
            s.edges_in.clear();
    }
    for (size_t e = 0; e < edges.size(); e++) {
        Edge &edge = edges[e];
        funcs[edge.consumer_func].stages[edge.consumer_stage].edges_in.push_back(int(e));
        if (edge.kind != ProducerKind::Func) continue;
        FuncNode &p = funcs[edge.producer];
        p.edges_out.push_back(int(e));
        if (edge.consumer_func != edge.producer &&
            std::find(p.consumers.begin(), p.consumers.end(), edge.consumer_func) ==
                p.consumers.end()) {
            p.consumers.push_back(edge.consumer_func);
        }
    }
    for (FuncNode &f : funcs)
        std::sort(f.consumers.begin(), f.consumers.end());
}

} // namespace sextant
