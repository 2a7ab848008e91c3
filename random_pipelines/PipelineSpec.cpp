// PipelineSpec helpers: names, canonical ranges, structural hash, description.
#include "random_pipelines/PipelineSpec.h"

#include "support/Rng.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace sextant {
namespace random_pipelines {

const char *kind_name(StageKind k) {
    switch (k) {
    case StageKind::InputBoundary:
        return "input_boundary";
    case StageKind::Pointwise:
        return "pointwise";
    case StageKind::Cast:
        return "cast";
    case StageKind::Select:
        return "select";
    case StageKind::Stencil1D:
        return "stencil_1d";
    case StageKind::Stencil2D:
        return "stencil_2d";
    case StageKind::Separable2D:
        return "separable_2d";
    case StageKind::Downsample:
        return "downsample";
    case StageKind::Upsample:
        return "upsample";
    case StageKind::Transpose:
        return "transpose";
    case StageKind::Broadcast:
        return "broadcast";
    case StageKind::Slice:
        return "slice";
    case StageKind::ReduceSum:
        return "reduce_sum";
    case StageKind::ReduceMax:
        return "reduce_max";
    case StageKind::ArgMin:
        return "argmin";
    case StageKind::TuplePair:
        return "tuple_pair";
    case StageKind::Histogram:
        return "histogram";
    case StageKind::Scan:
        return "scan";
    case StageKind::ConvLayer:
        return "conv_layer";
    case StageKind::MatMul:
        return "matmul";
    case StageKind::Lookup:
        return "lookup";
    case StageKind::Boundary:
        return "boundary";
    case StageKind::FanIn:
        return "fan_in";
    case StageKind::Count:
        break;
    }
    return "unknown";
}

const ElemTypeInfo &elem_type_info(ElemType t) {
    static const ElemTypeInfo rows[] = {
        {"uint8", ElemTypeInfo::UInt, 8, 0, 255},
        {"uint16", ElemTypeInfo::UInt, 16, 0, 65535},
        {"int16", ElemTypeInfo::Int, 16, -32768, 32767},
        {"int32", ElemTypeInfo::Int, 32, -65536, 65536},
        {"float32", ElemTypeInfo::Float, 32, -65536, 65536},
        {"float64", ElemTypeInfo::Float, 64, -65536, 65536},
    };
    return rows[size_t(t)];
}

const char *boundary_name(BoundaryKind b) {
    switch (b) {
    case BoundaryKind::RepeatEdge:
        return "repeat_edge";
    case BoundaryKind::ConstantExterior:
        return "constant_exterior";
    case BoundaryKind::MirrorImage:
        return "mirror_image";
    case BoundaryKind::MirrorInterior:
        return "mirror_interior";
    case BoundaryKind::RepeatImage:
        return "repeat_image";
    case BoundaryKind::ClampCoords:
        return "clamp_coords";
    case BoundaryKind::Count:
        break;
    }
    return "unknown";
}

std::vector<int> consumers_of(const PipelineSpec &spec, int i) {
    std::vector<int> out;
    for (size_t j = 0; j < spec.stages.size(); j++) {
        for (int p : spec.stages[j].producers) {
            if (p == i) {
                out.push_back(int(j));
                break;
            }
        }
    }
    return out;
}

namespace {

// FNV-1a over 64-bit words, finished with a SplitMix64 mix.
class Hasher {
public:
    void add(uint64_t v) {
        for (int i = 0; i < 8; i++) {
            h_ ^= (v >> (8 * i)) & 0xff;
            h_ *= 0x100000001b3ull;
        }
    }
    void add(const std::vector<int> &v) {
        add(uint64_t(v.size()));
        for (int x : v) {
            add(uint64_t(int64_t(x)));
        }
    }
    void add_double(double d) {
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        add(bits);
    }
    uint64_t result() const { return mix64(h_); }

private:
    uint64_t h_ = 0xcbf29ce484222325ull;
};

std::string extents_str(const std::vector<int> &e) {
    std::ostringstream s;
    s << "[";
    for (size_t i = 0; i < e.size(); i++) {
        s << (i ? "x" : "") << e[i];
    }
    s << "]";
    return s.str();
}

} // namespace

uint64_t structural_hash(const PipelineSpec &spec, int generator_version) {
    Hasher h;
    h.add(uint64_t(generator_version));
    h.add(uint64_t(spec.inputs.size()));
    for (const InputSpec &in : spec.inputs) {
        h.add(uint64_t(in.type));
        h.add(uint64_t(in.role));
        h.add(in.extents);
        h.add_double(in.lo);
        h.add_double(in.hi);
    }
    h.add(uint64_t(spec.scalars.size()));
    for (const ScalarSpec &s : spec.scalars) {
        h.add(uint64_t(s.type));
        h.add_double(s.value);
    }
    h.add(uint64_t(spec.stages.size()));
    for (const StageSpec &s : spec.stages) {
        h.add(uint64_t(s.kind));
        h.add(uint64_t(s.type));
        h.add(uint64_t(s.tuple_size));
        h.add(s.extents);
        h.add(s.producers);
        h.add(s.inputs);
        h.add(s.scalars);
        h.add(s.ints);
    }
    h.add(spec.outputs);
    return h.result();
}

bool built_alike_by_generator(const PipelineSpec &spec, int v) {
    if (v == kGeneratorVersion) return true;
    if (v != 1) return false;
    for (const StageSpec &s : spec.stages)
        if (s.kind == StageKind::TuplePair && s.ints[0] != 0) return false;
    return true;
}

std::string describe(const PipelineSpec &spec) {
    std::ostringstream s;
    s << "random pipeline seed=" << spec.seed << " generator_version=" << kGeneratorVersion
      << " hash=0x" << std::hex << structural_hash(spec) << std::dec << "\n";
    s << "estimated work (default schedule): " << spec.estimated_work << " ops\n";
    s << "inputs:\n";
    for (const InputSpec &in : spec.inputs) {
        const char *role = in.role == InputRole::Data      ? "data"
                           : in.role == InputRole::Weights ? "weights"
                                                           : "table";
        s << "  " << in.name << " " << type_name(in.type) << " " << in.extents.size() << "-D "
          << extents_str(in.extents) << " " << role << " values [" << in.lo << ", " << in.hi
          << "]\n";
    }
    if (!spec.scalars.empty()) {
        s << "scalar params:\n";
        for (const ScalarSpec &p : spec.scalars) {
            s << "  " << p.name << " " << type_name(p.type) << " = " << p.value << "\n";
        }
    }
    s << "stages:\n";
    for (size_t i = 0; i < spec.stages.size(); i++) {
        const StageSpec &st = spec.stages[i];
        s << "  " << st.name << " kind=" << kind_name(st.kind) << " type=" << type_name(st.type);
        if (st.tuple_size > 1) {
            s << " tuple=" << st.tuple_size;
        }
        s << " dims=" << st.extents.size() << " sizes=" << extents_str(st.extents);
        s << " reads={";
        bool first = true;
        for (int p : st.producers) {
            s << (first ? "" : ", ") << spec.stages[p].name;
            first = false;
        }
        for (int p : st.inputs) {
            s << (first ? "" : ", ") << spec.inputs[p].name;
            first = false;
        }
        for (int p : st.scalars) {
            s << (first ? "" : ", ") << spec.scalars[p].name;
            first = false;
        }
        s << "}";
        if (st.kind == StageKind::InputBoundary || st.kind == StageKind::Boundary) {
            s << " boundary=" << boundary_name(BoundaryKind(st.ints[0]));
            if (st.kind == StageKind::InputBoundary && st.ints.size() > 1 && st.ints[1])
                s << " unguarded";
        } else if (!st.ints.empty()) {
            s << " params=[";
            for (size_t k = 0; k < st.ints.size(); k++) {
                s << (k ? "," : "") << st.ints[k];
            }
            s << "]";
        }
        s << " consumers={";
        first = true;
        for (int c : consumers_of(spec, int(i))) {
            s << (first ? "" : ", ") << spec.stages[c].name;
            first = false;
        }
        s << "}";
        for (size_t o = 0; o < spec.outputs.size(); o++) {
            if (spec.outputs[o] == int(i)) {
                s << " OUTPUT" << o;
            }
        }
        s << "\n";
    }
    return s.str();
}

} // namespace random_pipelines
} // namespace sextant
