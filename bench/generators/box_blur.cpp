// box_blur: a separable 3x3 box filter on a 16-bit grayscale image.
// Two stages (horizontal then vertical mean) with a clamped-edge boundary. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class BoxBlur : public Generator<BoxBlur> {
public:
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func in32("in32");
        in32(x, y) = cast<uint32_t>(clamped(x, y));
        Func rows("rows");
        rows(x, y) = in32(x - 1, y) + in32(x, y) + in32(x + 1, y);
        Func cols("cols");
        cols(x, y) = rows(x, y - 1) + rows(x, y) + rows(x, y + 1);
        output(x, y) = cast<uint16_t>((cols(x, y) + 4) / 9);

        input.set_estimates({{0, 1536}, {0, 2560}});
        output.set_estimates({{0, 1536}, {0, 2560}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(BoxBlur, box_blur)
