// matmul: single-precision dense matrix multiply C = A B, 512 x 512 x 512, with A and B
// indexed (column, row). No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class MatMul : public Generator<MatMul> {
public:
    Input<Buffer<float>> a{"a", 2};
    Input<Buffer<float>> b{"b", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        RDom k(0, a.dim(0).extent(), "k");
        Func prod("prod");
        prod(x, y) = 0.0f;
        prod(x, y) += a(k, y) * b(x, k);
        output(x, y) = prod(x, y);

        a.set_estimates({{0, 512}, {0, 512}});
        b.set_estimates({{0, 512}, {0, 512}});
        output.set_estimates({{0, 512}, {0, 512}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(MatMul, matmul)
