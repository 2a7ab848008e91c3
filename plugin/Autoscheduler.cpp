#include "Autoscheduler.h"

#include "costmodel/CostModel.h"
#include "costmodel/CostTerms.h"
#include "costmodel/ModelEvaluator.h"
#include "costmodel/TrainingReplay.h"
#include "dag/DagJson.h"
#include "featurizer/Featurizer.h"
#include "halide/DagBuilder.h"
#include "halide/HalideVersion.h"
#include "halide/ScheduleApplier.h"
#include "plugin/ModelChoice.h"
#include "search/Candidates.h"
#include "search/Directives.h"
#include "search/Polish.h"
#include "search/ScheduleConstructs.h"
#include "search/ScheduleText.h"
#include "support/Files.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace sextant {

namespace {

std::string read_file(const std::string &path) {
    return read_whole_file(path, "schedule file");
}

void write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    if (!out) throw UserError("cannot write '" + path + "'");
    out << text;
}

std::string featurization_json(const PipelineDag &dag, const ModelEvaluator &eval, const State &s,
                               CostModel &model) {
    FeatureBatch b = eval.featurizer().featurize_schedule(s.decisions, s.nests);
    std::vector<double> costs = model.predict_stages(b);
    nlohmann::json j;
    j["schema_version"] = kFeatureSchemaVersion;
    const auto &names = schedule_schema();
    for (size_t r = 0; r < b.size(); r++) {
        nlohmann::json row;
        int sid = b.stage_ids[r];
        for (const FuncNode &f : dag.funcs)
            for (const Stage &st : f.stages)
                if (eval.featurizer().stage_id(f.id, st.index) == sid) row["stage"] = st.name;
        row["predicted_seconds"] = costs[r];
        for (size_t k = 0; k < names.size(); k++)
            row["schedule"][names[k].name] = b.schedule[r][k];
        // The analytical cost terms of the row (before any model's coefficients), so a
        // misprediction can be traced to the term that carries it.
        const TermRow terms = cost_terms(b.schedule[r], dag.machine.parallelism,
                                         double(dag.machine.last_level_cache_bytes));
        for (int k = 0; k < kNumCostTerms; k++)
            row["terms"][cost_term_name(CostTerm(k))] = terms[k];
        row["algorithm"] = (*b.algorithm)[sid];
        j["stages"].push_back(row);
    }
    return j.dump(1);
}

/** SEXTANT_CANDIDATES: DIR/candidates.jsonl, one line per distinct candidate, the main
 * search's choice first: {"index","source","predicted_seconds","schedule_text"}. Returns the
 * first (null if no search found a schedule). */
StatePtr write_candidates(const PipelineDag &dag, const SearchSpace &space, CostModel &model,
                          const BeamSearchOptions &main_search, const Params &params,
                          const std::function<void(const std::string &)> &log, SearchStats *stats) {
    CandidateSearchOptions co;
    co.count = params.num_candidates;
    co.first = main_search;
    co.dropout_beam_size = params.candidate_beam_size;
    co.seed_offset = params.search.seed << 20;
    for (const std::string &f : params.mutate_files)
        co.mutate_texts.push_back(read_file(f));
    co.mutations = params.num_mutations;
    co.tweaks = params.num_tweaks;
    co.neighbours = params.learned_neighbours;
    // Each search's pick polished as the plugin polishes its own, so the first candidate is the
    // schedule the plugin gives (autotuning's untuned pick) and its neighbours are that one's.
    co.polish_margin = params.polish ? params.polish_margin : -1;
    std::vector<SearchCandidate> cands = search_candidates(
        dag, space, [&] { return std::make_unique<ModelEvaluator>(dag, model); }, co, stats);
    std::string path = params.candidates_dir + "/candidates.jsonl";
    std::string lines;
    for (size_t i = 0; i < cands.size(); i++) {
        nlohmann::json j;
        j["index"] = i;
        j["source"] = cands[i].source;
        j["predicted_seconds"] = cands[i].state->cost;
        j["schedule_text"] = cands[i].text;
        lines += j.dump() + "\n";
    }
    write_file(path, lines);
    log("wrote " + std::to_string(cands.size()) + " candidates to " + path);
    return cands.empty() ? nullptr : cands[0].state;
}

} // namespace

namespace {

/** Where autoschedule() is, for the message of an internal error. */
struct Progress {
    std::string phase = "analysing the pipeline";
    std::vector<std::string> func_names; // by Func id, once the DAG is built
    /** Where the search was when it threw (SearchStats::pass/step/func); pass 0: not in it. */
    int pass = 0, step = 0, func = -1;
};

std::string describe_progress(const std::vector<Halide::Internal::Function> &outputs,
                              const Progress &p) {
    std::ostringstream o;
    o << "while " << p.phase;
    if (p.pass > 0) {
        o << " (pass " << p.pass << ", step " << p.step + 1;
        if (p.func >= 0 && p.func < int(p.func_names.size()))
            o << ": deciding Func '" << p.func_names[size_t(p.func)] << "'";
        o << ")";
    }
    o << ", for the pipeline with output";
    if (outputs.size() > 1) o << "s";
    for (size_t i = 0; i < outputs.size(); i++)
        o << (i ? ", " : " ") << "'" << outputs[i].name() << "'";
    return o.str();
}

/** The beam search's options from the plugin's parameters; the time limit is what analysing
 * the pipeline and loading the model (since `started`) left of it. */
BeamSearchOptions search_options(const Params &params,
                                 std::chrono::steady_clock::time_point started) {
    BeamSearchOptions bo = params.search;
    const double limit = params.search.time_limit_s;
    if (limit > 0) {
        double used =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        bo.time_limit_s = std::max(0.05 * limit, limit - used);
    } else {
        bo.time_limit_s = 0;
    }
    return bo;
}

/** The search (or SEXTANT_CANDIDATES' several searches): its pick, never null. Reports the
 * bounds' notes and a root allocation over SEXTANT_MEMORY_LIMIT on stderr; on an exception,
 * leaves where the search was in `progress`. */
StatePtr search(const PipelineDag &dag, const SearchSpace &space, CostModel &model,
                ModelEvaluator &eval, const Params &params,
                std::chrono::steady_clock::time_point started,
                const std::function<void(const std::string &)> &log, const SearchHooks &hooks,
                Progress &progress, SearchStats *stats) {
    const BeamSearchOptions bo = search_options(params, started);
    StatePtr best;
    try {
        if (params.learned_ranks_candidates()) {
            // The analytical model proposes, the learned model (eval) chooses.
            CandidateSearchOptions co;
            co.first = bo;
            co.polish_margin = params.polish ? params.polish_margin : -1;
            co.trust_margin = params.learned_margin;
            co.neighbours = params.learned_neighbours;
            RankedPick rp =
                rank_analytical_candidates(dag, space, eval, params.learned_candidates, co, stats);
            if (rp.state) {
                std::ostringstream o;
                o << "the learned model chose the analytical model's '"
                  << rp.candidates[size_t(rp.chosen)].source << "' candidate of "
                  << rp.candidates.size() << " (predicted ms:";
                for (size_t i = 0; i < rp.candidates.size(); i++)
                    o << " " << rp.candidates[i].source << " " << rp.rank_costs[i] * 1e3;
                o << ")";
                log(o.str());
            }
            best = rp.state;
        } else if (params.candidates_dir.empty()) {
            std::unique_ptr<StateEvaluator> wrapped;
            if (hooks.wrap_evaluator) wrapped = hooks.wrap_evaluator(eval);
            StateEvaluator &ev = wrapped ? *wrapped : eval;
            BeamSearchOptions traced = bo;
            Decisions target;
            if (!params.trace_file.empty()) {
                target = parse_schedule_text(dag, read_file(params.trace_file));
                traced.trace = &target;
                traced.trace_costs = params.debug > 1;
            }
            best = beam_search(space, ev, traced, stats,
                               params.debug > 1 || traced.trace
                                   ? log
                                   : std::function<void(const std::string &)>());
            if (best && params.polish) {
                // Finer strips start from the last pass's beam as well.
                best = polish_pick(space, ev, best, stats->final_beam, params.polish_margin, log);
            }
        } else {
            best = write_candidates(dag, space, model, bo, params, log, stats);
        }
    } catch (...) {
        progress.pass = stats->pass;
        progress.step = stats->step;
        progress.func = stats->func;
        throw;
    }
    SEXTANT_ASSERT(best, "the search ended without a complete schedule (a step had no legal "
                         "child)");
    // What the bounds did is worth knowing even without SEXTANT_DEBUG.
    for (const std::string &n : stats->notes)
        std::cerr << "Sextant: " << n << "\n";
    const double memory_limit = params.search.memory_limit_bytes;
    if (memory_limit > 0 && best->root_bytes > memory_limit) {
        std::cerr << "Sextant: warning: no schedule keeps its root allocations within "
                     "SEXTANT_MEMORY_LIMIT="
                  << int64_t(memory_limit) << " bytes; the chosen one allocates "
                  << int64_t(best->root_bytes) << " bytes at root\n";
    }
    return best;
}

/** A box as Halide's stmt shows bounds: [min, max] per dimension. */
std::string region_text(const Box64 &box) {
    std::string text;
    for (const Interval64 &i : box)
        text += "[" + std::to_string(i.min) + ", " + std::to_string(i.max) + "]";
    return text;
}

/** The debug log's last line: search effort, prediction, and the allocator's predicted cost
 * (with `buffers`, one line per heap or stack buffer). */
std::string summary(const PipelineDag &dag, const ModelEvaluator &eval, const State &best,
                    const AutoscheduleResult &r, bool buffers_too) {
    const ModelEvaluator::Timing &t = eval.timing();
    std::ostringstream done;
    done << "scheduled " << dag.funcs.size() << " Funcs in " << r.stats.seconds_total
         << " s: " << r.stats.states_evaluated << " states, " << t.rows
         << " stage rows featurized in " << t.featurize_seconds << " s ("
         << (t.featurize_seconds > 0 ? double(t.states) / t.featurize_seconds : 0.0)
         << " states/s), cost model " << t.predict_seconds << " s ("
         << (r.stats.seconds_total > 0 ? 100.0 * t.predict_seconds / r.stats.seconds_total : 0.0)
         << "% of search); predicted " << r.predicted_seconds * 1e3
         << " ms per run; unrolling adds " << best.unrolled_nodes
         << " IR nodes; search held at most " << r.stats.peak_held_bytes / (1024.0 * 1024.0)
         << " MiB";
    std::vector<AllocatorBuffer> buffers;
    const AllocatorEstimate alloc = estimate_allocator(dag, best.decisions, best.nests, &buffers);
    done << "; allocator: " << alloc.heap_mallocs << " mallocs and " << alloc.page_faults
         << " page faults per run predicted (" << allocator_seconds(alloc) * 1e3
         << " ms; trim threshold " << alloc.trim_threshold_bytes / 1024 << " KiB)";
    if (buffers_too) {
        // Each stage of the pick: the model's cost, and the analytical model's terms, largest first
        // (docs/COSTMODEL.md, "Finding a mispriced term by replay").
        Featurizer featurizer(dag);
        const auto &coef = AnalyticalModel::coefficients();
        for (size_t f = 0; f < dag.funcs.size(); f++) {
            if (!best.nests[f]) continue;
            done << "\n  func " << dag.funcs[f].name << ": " << best.func_scores[f].cost * 1e3
                 << " ms";
            for (size_t st = 0; st < dag.funcs[f].stages.size(); st++) {
                const ScheduleRow row =
                    featurizer.schedule_features(best.decisions, best.nests, int(f), int(st));
                const TermRow t = cost_terms(row, dag.machine.parallelism,
                                             double(dag.machine.last_level_cache_bytes));
                std::vector<std::pair<double, int>> ms;
                for (int k = 0; k < kNumCostTerms; k++)
                    if (t[size_t(k)] * coef[size_t(k)] > 0)
                        ms.push_back({t[size_t(k)] * coef[size_t(k)] * 1e3, k});
                std::sort(ms.rbegin(), ms.rend());
                done << "\n    stage " << st << " (analytical terms, ms):";
                for (size_t i = 0; i < ms.size(); i++)
                    done << " " << cost_term_name(CostTerm(ms[i].second)) << " " << ms[i].first;
            }
        }
        for (const AllocatorBuffer &b : buffers)
            done << "\n  buffer " << dag.funcs[b.func].name << ": "
                 << (b.bytes > 0
                         ? std::to_string(int64_t(b.bytes / 1024)) + " KiB from malloc"
                         : std::to_string(int64_t(best.nests[size_t(b.func)]->alloc_points *
                                                  dag.funcs[size_t(b.func)].bytes_per_point)) +
                               " bytes on the stack")
                 << ", " << b.allocations << " allocations and " << b.page_faults
                 << " page faults per run; computed "
                 << region_text(best.nests[size_t(b.func)]->region) << " x "
                 << best.nests[size_t(b.func)]->realizations;
    }
    return done.str();
}

AutoscheduleResult autoschedule_impl(const std::vector<Halide::Internal::Function> &outputs,
                                     const Halide::Target &target, const MachineInfo &machine,
                                     const Params &params, const SearchHooks &hooks,
                                     Progress &progress) {
    auto log = [&](const std::string &msg) {
        if (params.debug > 0 || !params.trace_file.empty()) std::cerr << "Sextant: " << msg << "\n";
    };
    const auto started = std::chrono::steady_clock::now();
    log("params: " + params.describe());
    PipelineDag dag = build_pipeline_dag(outputs, target, machine);
    for (const FuncNode &f : dag.funcs)
        progress.func_names.push_back(f.name);
    if (!params.dump_dag_path.empty()) write_file(params.dump_dag_path, dag_to_json(dag).dump(1));

    progress.phase = "loading the cost model";
    std::unique_ptr<CostModel> model =
        make_cost_model(params.cost_model, params.weights, dag.machine);
    ModelEvaluator eval(dag, *model, params.check_siblings);
    SearchSpace space(dag);
    AutoscheduleResult r;
    r.cost_model = model->name();
    StatePtr best;
    if (!params.export_training_dir.empty()) {
        // Re-featurizing measured schedules of a pipeline only its generator can build
        // (sextant-sample --export-training): the reply goes to the directory, and the first
        // schedule that replays is applied so that the generator finishes normally.
        progress.phase = "re-featurizing measured schedules for training";
        const std::string dir = params.export_training_dir;
        std::string pipeline;
        const std::vector<MeasuredSchedule> records =
            read_replay_request(dir + "/request.json", &pipeline);
        const ReplayOutcome o = replay_measured(dag, pipeline, records);
        write_file_atomically(dir + "/reply.txt", encode_replay_reply(o));
        if (!o.first)
            throw UserError("none of the " + std::to_string(records.size()) + " schedules in " +
                            dir + "/request.json replays on this pipeline");
        best = o.first;
        std::vector<State *> one = {best.get()};
        eval.evaluate(one);
    } else if (!params.schedule_file.empty()) {
        progress.phase = "replaying " + params.schedule_file;
        best = space.replay(read_file(params.schedule_file));
        std::vector<State *> one = {best.get()};
        eval.evaluate(one);
        log("replaying " + params.schedule_file);
    } else {
        progress.phase = "searching";
        best = search(dag, space, *model, eval, params, started, log, hooks, progress, &r.stats);
    }
    if (best->buffer_too_large) {
        const FuncNode &f = dag.funcs[size_t(best->largest_buffer_func)];
        std::ostringstream o;
        o << (params.schedule_file.empty() ? "no schedule Sextant found"
                                           : "the schedule in " + params.schedule_file)
          << " keeps Func '" << f.name << "' in one buffer of "
          << int64_t(best->largest_buffer_bytes) << " bytes, over the "
          << dag.machine.max_buffer_bytes
          << " bytes Halide allows a buffer on this target; add the target feature "
             "'large_buffers' or make the pipeline's estimates smaller";
        throw UserError(o.str());
    }
    progress.phase = "applying the schedule";
    r.predicted_seconds = best->cost;
    r.schedule_text = to_schedule_text(dag, best->decisions);
    r.constructs = schedule_constructs(dag, best->decisions);
    std::vector<Directive> directives = make_directives(dag, best->decisions);
    std::map<std::string, Halide::Func> funcs = funcs_by_name(outputs);
    apply_directives(dag, directives, funcs);
    progress.phase = "writing the schedule source and featurization";
    std::ostringstream header;
    const bool ranked = params.schedule_file.empty() && params.export_training_dir.empty() &&
                        params.learned_ranks_candidates();
    header << "Schedule generated by Sextant (" << r.cost_model << " cost model"
           << (ranked ? " choosing among " + std::to_string(params.learned_candidates) +
                            " analytical-model candidates"
                      : std::string())
           << ", beam " << params.search.beam_size << ", " << params.search.num_passes
           << " passes, seed " << params.search.seed << ") for target " << target.to_string()
           << ", parallelism " << dag.machine.parallelism << "; predicted "
           << r.predicted_seconds * 1e3 << " ms per run.";
    r.schedule_source = schedule_source(dag, directives, r.schedule_text, header.str());
    r.featurization = featurization_json(dag, eval, *best, *model);
    if (!params.dump_schedule_path.empty()) write_file(params.dump_schedule_path, r.schedule_text);
    const ModelEvaluator::Timing &t = eval.timing();
    r.featurize_seconds = t.featurize_seconds;
    r.model_seconds = t.predict_seconds;
    r.rows_featurized = t.rows;
    if (params.debug > 0) log(summary(dag, eval, *best, r, params.debug > 1));
    return r;
}

} // namespace

AutoscheduleResult autoschedule(const std::vector<Halide::Internal::Function> &outputs,
                                const Halide::Target &target, const MachineInfo &machine,
                                const Params &params, const SearchHooks &hooks) {
    Progress progress;
    try {
        return autoschedule_impl(outputs, target, machine, params, hooks, progress);
    } catch (const UserError &) {
        throw;
    } catch (const std::bad_alloc &) {
        throw InternalError("out of memory (std::bad_alloc) " +
                            describe_progress(outputs, progress));
    } catch (const std::exception &e) {
        throw InternalError(std::string(e.what()) + " " + describe_progress(outputs, progress));
    }
}

void autoschedule_for_halide(const Halide::Pipeline &pipeline, const Halide::Target &target,
                             const Halide::MachineParams &mp, Halide::AutoSchedulerResults *results,
                             const SearchHooks &hooks) {
    const std::string report = " (this is a bug in Sextant; SEXTANT_DEBUG=2 shows the search's "
                               "progress, SEXTANT_COST_MODEL=analytical avoids the learned model)";
    try {
        std::vector<Halide::Internal::Function> outputs;
        for (const Halide::Func &f : pipeline.outputs())
            outputs.push_back(f.function());
        const Params params = Params::from_environment();
        const AutoscheduleResult r = autoschedule(outputs, target, machine_info(mp), params, hooks);
        results->scheduler_name = "Sextant";
        results->target = target;
        results->machine_params_string = mp.to_string();
        results->schedule_source = r.schedule_source;
        results->featurization.assign(r.featurization.begin(), r.featurization.end());
    } catch (const UserError &e) {
        // Halide's generator driver reports CompileErrors and exits non-zero.
        throw Halide::CompileError(std::string("Sextant: ") + e.what());
    } catch (const std::bad_alloc &) {
        throw Halide::CompileError("Sextant internal error: out of memory (std::bad_alloc)" +
                                   report);
    } catch (const std::exception &e) {
        throw Halide::CompileError(std::string("Sextant internal error: ") + e.what() + report);
    } catch (...) {
        throw Halide::CompileError("Sextant internal error: an unknown exception" + report);
    }
}

} // namespace sextant
