// PipelineSpec: a random pipeline as plain data (stage kinds, element types, extents,
// producer edges, per-kind integer parameters, inputs, scalar parameters, outputs).
// It holds no Halide objects: the planner (Planner.cpp) makes it from a seed, the
// builder (Builder.h) turns it into Halide Funcs, and --describe / the structural hash
// read it. Everything random is decided here, so building is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sextant {
namespace random_pipelines {

/** Element types used by the generator. */
enum class ElemType : uint8_t { UInt8, UInt16, Int16, Int32, Float32, Float64 };

/** Stage vocabulary; see docs/RANDOM_PIPELINES.md for what each builds. */
enum class StageKind : uint8_t {
    InputBoundary, ///< a boundary condition (or coordinate clamp) on an input ImageParam
    Pointwise,     ///< unary/binary arithmetic on one or two producers
    Cast,          ///< saturating conversion to another element type
    Select,        ///< select / min / max / clamp against scalar params
    Stencil1D,     ///< 3..7-tap stencil along one dimension
    Stencil2D,     ///< non-separable k x k stencil (k = 3, 5, 7)
    Separable2D,   ///< two 1-D passes (two Funcs: <name>_x and <name>)
    Downsample,    ///< factor-2 downsample (box) in one or two dimensions
    Upsample,      ///< factor-2 upsample (linear) in one or two dimensions
    Transpose,     ///< permutation of dimensions
    Broadcast,     ///< adds a dimension (channels)
    Slice,         ///< removes a dimension by fixing a coordinate
    ReduceSum,     ///< sum over one dimension with an RDom (sometimes with where())
    ReduceMax,     ///< max over one dimension with an RDom (sometimes with where())
    ArgMin,        ///< Tuple-valued (index, value) arg-min over one dimension
    TuplePair,     ///< Tuple-valued pointwise pair (min, max) or (sum, difference)
    Histogram,     ///< scatter: counts of binned values over a whole producer
    Scan,          ///< prefix sum along one dimension (update reads its own output)
    ConvLayer,     ///< k x k x C_in -> C_out convolution (3-D/4-D), weights input or computed
    MatMul,        ///< matrix-multiply-like reduction against a weights matrix
    Lookup,        ///< data-dependent load from a lookup table (clamped index)
    Boundary,      ///< boundary condition on an intermediate Func with explicit bounds
    FanIn,         ///< combines two or three producers (average or max)
    Count
};

/** Boundary-condition flavours for InputBoundary and Boundary stages. */
enum class BoundaryKind : uint8_t {
    RepeatEdge,
    ConstantExterior,
    MirrorImage,
    MirrorInterior,
    RepeatImage,
    ClampCoords,
    Count
};

/** The role of an input buffer: data (full value range), weights (small ints) or a table. */
enum class InputRole : uint8_t { Data, Weights, Table };

struct InputSpec {
    std::string name;
    ElemType type = ElemType::UInt8;
    InputRole role = InputRole::Data;
    std::vector<int> extents; ///< also the ImageParam estimates; min is always 0
    double lo = 0, hi = 255;  ///< values the fill pattern uses (inclusive)
};

/** A Pointwise stage's operation: StageSpec::ints[0]. Binary ones (two producers) a, b;
 * unary ones (one producer) a. The values are part of a plan's identity (its structural hash,
 * `describe`): never renumber them. */
enum class PointwiseOp : int {
    Add = 0,           ///< a + b
    Subtract = 1,      ///< a - b
    Multiply = 2,      ///< a * b (scaled down for floats, clamped operands for integers)
    AbsDifference = 3, ///< |a - b|
    Average = 4,       ///< (a + b) / 2
    SelectLarger = 5,  ///< a > b ? a - b : b
    Affine = 10,       ///< a * scale + offset (two scalar params)
    Square = 11,       ///< a * a (scaled)
    Wavy = 12,         ///< sqrt(|a|) and sin(a) for floats, 3a / 2 for integers
    Halve = 13,        ///< a / 2 - 1 (a / 2 + 1 for integers)
    Invert = 14,       ///< the type's top value - a
};

/** A scalar parameter: Int32 or Float32, with the value runs use (also its estimate). */
struct ScalarSpec {
    std::string name;
    ElemType type = ElemType::Int32;
    double value = 0;
};

struct StageSpec {
    StageKind kind = StageKind::Pointwise;
    std::string name;                ///< unique Func name, e.g. "s3_stencil_2d"
    ElemType type = ElemType::Int32; ///< element type (of every Tuple element's access value)
    std::vector<int> extents;        ///< nominal domain; min is always 0
    std::vector<int> producers;      ///< stage indices read by this stage
    std::vector<int> inputs;      ///< input indices read directly (InputBoundary, weights, tables)
    std::vector<int> scalars;     ///< scalar indices read
    std::vector<int> ints;        ///< kind-specific parameters (see Builder.cpp)
    int tuple_size = 1;           ///< > 1 for Tuple-valued Funcs
    bool has_update = false;      ///< has update definitions (not inlinable)
    bool clamp_on_access = false; ///< values may leave the type's canonical range
    // Cost model under Halide's default schedule (abstract ops; see Planner.cpp).
    double point_cost = 0; ///< cost per point when a consumer reads one point
    double fixed_cost = 0; ///< extra cost per consumer point (whole-domain recompute)
    double root_cost = 0;  ///< cost of computing the nominal domain once as an output
    double tree_size = 0;  ///< expression size when inlined (compile-time guard)
    /** Update stages this stage reaches through inlined (pure) stages, each with whether
     *  the path remaps coordinates (scale/permute/slice/broadcast). Planner bookkeeping. */
    std::vector<std::pair<int, bool>> inlined_updates;
};

struct PipelineSpec {
    uint64_t seed = 0;
    std::vector<InputSpec> inputs;
    std::vector<ScalarSpec> scalars;
    std::vector<StageSpec> stages; ///< topological order: producers before consumers
    std::vector<int> outputs;      ///< stage indices, each a non-Tuple stage
    double estimated_work = 0;     ///< sum of output root costs (abstract ops)
};

/** Version of the generator's output for a given seed; bump when plans change. */
constexpr int kGeneratorVersion = 2;

/** What the planner and the builder know of an element type: one row per ElemType. */
struct ElemTypeInfo {
    const char *name; ///< as in PipelineSpec::describe and RandomPipeline's stage info
    enum Code : uint8_t { UInt, Int, Float } code;
    int bits;
    /** Values every non-accumulating stage of this type keeps to (inclusive). */
    double lo, hi;
};
const ElemTypeInfo &elem_type_info(ElemType t);

const char *kind_name(StageKind k);
inline const char *type_name(ElemType t) {
    return elem_type_info(t).name;
}
const char *boundary_name(BoundaryKind b);
inline bool is_float(ElemType t) {
    return elem_type_info(t).code == ElemTypeInfo::Float;
}
inline void canonical_range(ElemType t, double &lo, double &hi) {
    lo = elem_type_info(t).lo;
    hi = elem_type_info(t).hi;
}

/** Stage indices that read stage i. */
std::vector<int> consumers_of(const PipelineSpec &spec, int i);

/** 64-bit hash of the structure (kinds, types, extents, edges, parameters, inputs) and of
 * `generator_version` (default: this generator's). */
uint64_t structural_hash(const PipelineSpec &spec, int generator_version = kGeneratorVersion);

/** True if the generator of version `v` built the same Halide pipeline from `spec` as this
 * one does. Version 1 differs only in TuplePair stages of the (sum, difference) form, which
 * version 2 makes exact; plans never changed. Lets measurements of an old version's
 * pipelines that are unchanged be re-featurized (sampler/TrainingExport.cpp). */
bool built_alike_by_generator(const PipelineSpec &spec, int v);

/** Human-readable multi-line summary (for --describe). */
std::string describe(const PipelineSpec &spec);

} // namespace random_pipelines
} // namespace sextant
