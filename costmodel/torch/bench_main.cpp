// sextant-model-bench: inference time of the learned model (and of the analytical model, as a
// reference measured in the same run) per batch and per candidate state, on synthetic rows
// with realistic feature values, as CSV lines.
#include "costmodel/SyntheticData.h"
#include "costmodel/TrainableCostModel.h"
#include "support/Args.h"
#include "support/Errors.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sextant;

namespace {

const char *kUsage = "usage: sextant-model-bench [--rows-per-state N] [--threads N] "
                     "[--weights FILE] [--sizes 1,32,512,4096]\n";

double time_per_call(CostModel &m, const FeatureBatch &b, double min_seconds) {
    using Clock = std::chrono::steady_clock;
    volatile double sink = 0;
    for (int i = 0; i < 3; i++)
        sink = sink + m.predict_stages(b)[0]; // warm up
    int iters = 0;
    auto t0 = Clock::now();
    double el = 0;
    do {
        sink = sink + m.predict_stages(b)[0];
        iters++;
        el = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (el < min_seconds);
    return el / iters;
}

struct BenchOptions {
    int rows_per_state = 2, threads = 1;
    std::string weights;
    std::vector<int> sizes = {1, 32, 512, 4096}; ///< states per batch
};

/** "1,32,512": whole numbers >= 1; throws ArgError otherwise. */
std::vector<int> size_list(const std::string &text) {
    std::vector<int> sizes;
    for (const std::string &tok : split_list(text)) {
        char *end = nullptr;
        const long v = std::strtol(tok.c_str(), &end, 10);
        if (tok.empty() || *end || v < 1 || v > 1000000)
            throw ArgError("--sizes: '" + tok + "' is not a batch size (1 to 1000000)");
        sizes.push_back(int(v));
    }
    if (sizes.empty()) throw ArgError("--sizes: no batch size given");
    return sizes;
}

/** The command line; throws ArgError. */
BenchOptions parse_args(int argc, char **argv) {
    BenchOptions o;
    Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        if (a == "--rows-per-state")
            o.rows_per_state = args.integer(1);
        else if (a == "--threads")
            o.threads = args.integer(1);
        else if (a == "--weights")
            o.weights = args.value();
        else if (a == "--sizes")
            o.sizes = size_list(args.value());
        else
            args.unknown();
    }
    return o;
}

/** One CSV line per batch size: both models' time per batch and per state. */
void run_benchmark(const BenchOptions &o) {
    const int parallelism = kDefaultModelParallelism;
    const double llc = kDefaultModelLlcBytes;
    TorchModelConfig cfg;
    cfg.parallelism = parallelism;
    cfg.llc_bytes = llc;
    cfg.num_threads = o.threads;
    std::unique_ptr<TrainableCostModel> torch_model =
        o.weights.empty() ? make_torch_cost_model(cfg)
                          : load_torch_cost_model(o.weights, parallelism, llc, o.threads);
    AnalyticalModel analytical(parallelism, llc);

    // A 12-stage pipeline; each state contributes `--rows-per-state` rows (the stages a
    // candidate changed), as in ModelEvaluator.
    std::mt19937_64 rng(3);
    std::vector<std::vector<float>> table;
    for (int s = 0; s < 12; s++)
        table.push_back(synthetic_algorithm_row(rng));
    std::printf("batch_states,rows,torch_ms_per_batch,torch_us_per_state,analytical_ms_per_batch,"
                "analytical_us_per_state\n");
    for (const int states : o.sizes) {
        FeatureBatch b;
        b.algorithm = &table;
        b.num_states = states;
        for (int st = 0; st < states; st++) {
            for (int r = 0; r < o.rows_per_state; r++) {
                int stage = int(rng() % table.size());
                b.stage_ids.push_back(stage);
                b.state_index.push_back(st);
                b.schedule.push_back(synthetic_schedule_row(rng, 1e6, 8, 3, parallelism, llc));
            }
        }
        double t = time_per_call(*torch_model, b, 0.5);
        double ta = time_per_call(analytical, b, 0.2);
        std::printf("%d,%zu,%.4f,%.3f,%.4f,%.3f\n", states, b.size(), t * 1e3, t * 1e6 / states,
                    ta * 1e3, ta * 1e6 / states);
        std::fflush(stdout);
    }
}

} // namespace

int main(int argc, char **argv) {
    const BenchOptions o =
        parse_command_line("sextant-model-bench", kUsage, parse_args, argc, argv);
    return run_tool("sextant-model-bench", [&] {
        run_benchmark(o);
        return 0;
    });
}
