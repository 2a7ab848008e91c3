// random_pipeline: a Halide Generator over the same planner and builder as the JIT path,
// so a seed can be compiled ahead of time with GenGen:
//   random_pipeline.generator -g random_pipeline -o OUT -e static_library,h
//       target=host seed=7 max_stages=12   (one command line)
// Inputs (Input<Buffer<>> with the planned types/dimensions, then Input<int32_t|float>
// scalars) and outputs (Output<Buffer<>> output0..) are added in configure() from the
// plan, so their count, types and dimensions vary with the seed.
#include "random_pipelines/Builder.h"
#include "random_pipelines/Planner.h"

#include <Halide.h>

namespace sextant {
namespace random_pipelines {

class RandomPipelineGenerator : public Halide::Generator<RandomPipelineGenerator> {
public:
    GeneratorParam<uint64_t> seed{"seed", 0};
    GeneratorParam<int> min_stages{"min_stages", 2};
    GeneratorParam<int> max_stages{"max_stages", 12};
    GeneratorParam<int> max_outputs{"max_outputs", 3};
    GeneratorParam<double> max_work{"max_work", 6e7};
    GeneratorParam<int> max_extent{"max_extent", 2048};
    // The sizes the faithful corpus samples at (docs/SAMPLING.md): a stored workload's options
    // name them, so that its pipeline can be rebuilt here.
    GeneratorParam<int> min_extent{"min_extent", 64};
    GeneratorParam<int64_t> max_input_points{"max_input_points", int64_t(1) << 20};

    void configure() {
        RandomPipelineOptions opts;
        opts.min_stages = min_stages;
        opts.max_stages = max_stages;
        opts.max_outputs = max_outputs;
        opts.max_work = max_work;
        opts.max_extent = max_extent;
        opts.min_extent = min_extent;
        opts.max_input_points = max_input_points;
        spec_ = plan_random_pipeline(seed, opts);
        for (const InputSpec &in : spec_.inputs) {
            buffer_inputs_.push_back(
                add_input<Halide::Buffer<>>(in.name, halide_type(in.type), int(in.extents.size())));
        }
        for (const ScalarSpec &s : spec_.scalars) {
            if (s.type == ElemType::Int32) {
                int_inputs_.push_back(add_input<int32_t>(s.name));
            } else {
                float_inputs_.push_back(add_input<float>(s.name));
            }
        }
        for (size_t o = 0; o < spec_.outputs.size(); o++) {
            const StageSpec &st = spec_.stages[size_t(spec_.outputs[o])];
            outputs_.push_back(add_output<Halide::Buffer<>>(
                "output" + std::to_string(o), halide_type(st.type), int(st.extents.size())));
        }
    }

    void generate() {
        std::vector<Halide::Func> in_funcs;
        for (size_t i = 0; i < buffer_inputs_.size(); i++) {
            Halide::Region est;
            for (int e : spec_.inputs[i].extents)
                est.emplace_back(0, e);
            buffer_inputs_[i]->set_estimates(est);
            in_funcs.push_back(*buffer_inputs_[i]);
        }
        std::vector<Halide::Expr> scalars;
        size_t ni = 0, nf = 0;
        for (const ScalarSpec &s : spec_.scalars) {
            if (s.type == ElemType::Int32) {
                int_inputs_[ni]->set_estimate(int32_t(s.value));
                scalars.push_back(*int_inputs_[ni++]);
            } else {
                float_inputs_[nf]->set_estimate(float(s.value));
                scalars.push_back(*float_inputs_[nf++]);
            }
        }
        std::vector<Halide::Func> outs = build_pipeline_funcs(spec_, in_funcs, scalars);
        for (size_t o = 0; o < outs.size(); o++) {
            *outputs_[o] = outs[o];
            Halide::Region est;
            for (int e : spec_.stages[size_t(spec_.outputs[o])].extents)
                est.emplace_back(0, e);
            outputs_[o]->set_estimates(est);
        }
    }

private:
    PipelineSpec spec_;
    std::vector<Input<Halide::Buffer<>> *> buffer_inputs_;
    std::vector<Input<int32_t> *> int_inputs_;
    std::vector<Input<float> *> float_inputs_;
    std::vector<Output<Halide::Buffer<>> *> outputs_;
};

} // namespace random_pipelines
} // namespace sextant

HALIDE_REGISTER_GENERATOR(sextant::random_pipelines::RandomPipelineGenerator, random_pipeline)
