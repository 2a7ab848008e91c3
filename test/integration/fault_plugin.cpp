// A test-only build of the plugin whose search fails on purpose, to check how a bug deep in the
// search reaches the user: loading it registers "SextantFaultInternal" (a SEXTANT_ASSERT fails)
// and "SextantFaultBadAlloc" (std::bad_alloc), each at the search evaluator's 3rd call (pass 1,
// step 2 of a 2-Func pipeline: the first step's children are scored in two groups), which runs
// on the search's scoring thread. Everything else is the product's path: autoschedule_for_halide,
// its error translation and Halide's generator driver. "SextantFaultSlow" takes 10 minutes
// before it schedules (an autoscheduler that cannot finish in a user's autotuning budget).
#include "plugin/Autoscheduler.h"
#include "support/Errors.h"

#include <chrono>
#include <new>
#include <thread>

namespace {

enum class Fault { internal, bad_alloc };

class FaultyEvaluator : public sextant::StateEvaluator {
public:
    FaultyEvaluator(sextant::StateEvaluator &inner, Fault fault) : inner_(inner), fault_(fault) {}
    void evaluate(const std::vector<sextant::State *> &states) override {
        if (++calls_ == 3) {
            if (fault_ == Fault::bad_alloc) throw std::bad_alloc();
            SEXTANT_ASSERT(false, "injected by the test plugin");
        }
        inner_.evaluate(states);
    }

private:
    sextant::StateEvaluator &inner_;
    Fault fault_;
    int calls_ = 0;
};

void register_faulty(const char *name, Fault fault) {
    Halide::Pipeline::add_autoscheduler(
        name, [fault](const Halide::Pipeline &p, const Halide::Target &t,
                      const Halide::MachineParams &mp, Halide::AutoSchedulerResults *r) {
            sextant::SearchHooks hooks;
            hooks.wrap_evaluator = [fault](sextant::StateEvaluator &inner) {
                return std::make_unique<FaultyEvaluator>(inner, fault);
            };
            sextant::autoschedule_for_halide(p, t, mp, r, hooks);
        });
}

struct Register {
    Register() {
        register_faulty("SextantFaultInternal", Fault::internal);
        register_faulty("SextantFaultBadAlloc", Fault::bad_alloc);
        Halide::Pipeline::add_autoscheduler(
            "SextantFaultSlow",
            [](const Halide::Pipeline &p, const Halide::Target &t, const Halide::MachineParams &mp,
               Halide::AutoSchedulerResults *r) {
                std::this_thread::sleep_for(std::chrono::minutes(10));
                sextant::autoschedule_for_halide(p, t, mp, r, sextant::SearchHooks{});
            });
    }
} register_faulty_schedulers;

} // namespace
