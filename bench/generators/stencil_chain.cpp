// stencil_chain, stencil_chain_32: ten (or 32) successive 3x3 weighted smoothing stencils
// (Jacobi-style iterations with binomial weights 1-2-1) on a 16-bit image, integer arithmetic
// throughout. No schedule. The 32-stage chain is registered as a pipeline of its own: a deep
// chain is where a schedule must fuse many stages (tiles or sliding windows across them), which
// the 10-stage one does not show.
#include "Halide.h"

namespace {

using namespace Halide;

template <int DefaultStages> class StencilChain : public Generator<StencilChain<DefaultStages>> {
public:
    GeneratorParam<int> stages{"stages", DefaultStages};
    GeneratorInput<Buffer<uint16_t>> input{"input", 2};
    GeneratorOutput<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Func prev = BoundaryConditions::repeat_edge(input);
        for (int s = 0; s < stages; s++) {
            Func f("stage_" + std::to_string(s));
            Expr sum = cast<uint32_t>(0);
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    const int w = (dx == 0 ? 2 : 1) * (dy == 0 ? 2 : 1);
                    sum += cast<uint32_t>(prev(x + dx, y + dy)) * w;
                }
            }
            f(x, y) = cast<uint16_t>((sum + 8) >> 4);
            prev = f;
        }
        output(x, y) = prev(x, y);

        input.set_estimates({{0, 1536}, {0, 2560}});
        output.set_estimates({{0, 1536}, {0, 2560}});
    }
};

using StencilChain10 = StencilChain<10>;
using StencilChain32 = StencilChain<32>;

} // namespace

HALIDE_REGISTER_GENERATOR(StencilChain10, stencil_chain)
HALIDE_REGISTER_GENERATOR(StencilChain32, stencil_chain_32)
