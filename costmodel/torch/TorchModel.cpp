// The learned cost model: the net in Torch (training), its weights file, and the plain C++
// inference it hands predictions to (InferenceNet.h).
#include "TorchModel.h"

#include "InferenceNet.h"
#include "RankingLoss.h"
#include "costmodel/CostTerms.h"
#include "costmodel/WeightsFile.h"
#include "support/Errors.h"

#include <torch/optim/adam.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace sextant {

namespace {

constexpr double kLn2 = 0.69314718055994530942;

/** Flattened inputs of a batch: the algorithm table entries it uses (log1p), row -> entry,
 * schedule rows (log1p, not yet normalized) and raw cost terms. */
struct Inputs {
    torch::Tensor algorithm; // [used entries, A]
    torch::Tensor stage;     // [N] int64
    torch::Tensor schedule;  // [N, S]
    torch::Tensor terms;     // [N, K]
};

} // namespace

struct TorchCostModel::Impl {
    TorchModelConfig cfg;
    int A = num_algorithm_features();
    static constexpr int S = kNumScheduleFeatures;
    static constexpr int K = kNumCostTerms;

    // Trained parameters.
    torch::Tensor alg_w_raw, alg_b, sched_w, sched_b, hid_w, hid_b, out_w, out_b;
    /** Log multipliers of the allocator's two fault prices (main arena, thread arenas) over
     * kMainArenaFaultSeconds and kThreadArenaFaultSeconds: 0 = glibc's hand-set prices. */
    torch::Tensor alloc_log_price;
    // Fixed buffers (saved, not trained).
    torch::Tensor sched_mean, sched_std, term_scale;

    std::unique_ptr<torch::optim::Adam> optimizer;
    nlohmann::json extra = nlohmann::json::object();
    /** predict_stages' plain-C++ copy of the net; made on first use, dropped whenever a
     * parameter changes (set_parameter, train_step; load makes a fresh Impl). */
    std::unique_ptr<InferenceNet> inference;

    explicit Impl(const TorchModelConfig &c) : cfg(c) {
        if (cfg.algorithm_embedding < 1 || cfg.schedule_embedding < 1 || cfg.hidden < 1)
            throw std::invalid_argument("TorchModelConfig: layer sizes must be >= 1");
        if (!TorchModelConfig::valid_multiplier_range(cfg.multiplier_range))
            throw std::invalid_argument(
                "TorchModelConfig: multiplier_range must be 0 (unbounded) or in (1, 1e6)");
        std::mt19937_64 rng(cfg.seed);
        auto normal = [&](std::vector<int64_t> shape, double mean, double sd) {
            int64_t n = 1;
            for (int64_t d : shape)
                n *= d;
            std::normal_distribution<double> dist(mean, sd);
            std::vector<double> v(static_cast<size_t>(n));
            for (double &x : v)
                x = dist(rng);
            return torch::tensor(v, torch::kDouble).reshape(shape);
        };
        const int Ea = cfg.algorithm_embedding, Es = cfg.schedule_embedding, H = cfg.hidden;
        // softplus(-4) ~ 0.018: a stage's dozen non-zero log counts sum to O(1).
        alg_w_raw = cfg.schedule_only ? torch::full({A, Ea}, -40.0, torch::kDouble)
                                      : normal({A, Ea}, -4.0, 0.5);
        alg_b = normal({Ea}, 0.0, 0.5);
        sched_w = normal({S, Es}, 0.0, 1.0 / std::sqrt(double(S)));
        sched_b = torch::zeros({Es}, torch::kDouble);
        hid_w = normal({Ea + Es, H}, 0.0, std::sqrt(2.0 / double(Ea + Es)));
        hid_b = torch::zeros({H}, torch::kDouble);
        // Small output weights, zero bias: every multiplier softplus(~0)/ln2 ~ 1 at the start.
        out_w =
            cfg.global_prices ? torch::zeros({H, K}, torch::kDouble) : normal({H, K}, 0.0, 0.01);
        out_b = torch::zeros({K}, torch::kDouble);
        alloc_log_price = torch::zeros({2}, torch::kDouble);
        for (torch::Tensor *p : trained())
            p->set_requires_grad(true);
        sched_mean = torch::zeros({S}, torch::kDouble);
        sched_std = torch::ones({S}, torch::kDouble);
        const auto &coeff = AnalyticalModel::coefficients();
        term_scale = torch::tensor(std::vector<double>(coeff.begin(), coeff.end()), torch::kDouble);
    }

    InferenceNet &inference_net() {
        if (inference) return *inference;
        auto values = [](const torch::Tensor &t) {
            torch::Tensor c = t.detach().contiguous();
            return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
        };
        InferenceNetParams p;
        p.A = A;
        p.S = S;
        p.K = K;
        p.Ea = cfg.algorithm_embedding;
        p.Es = cfg.schedule_embedding;
        p.H = cfg.hidden;
        p.alg_w = values(torch::softplus(alg_w_raw.detach()));
        p.alg_b = values(alg_b);
        p.sched_w = values(sched_w);
        p.sched_b = values(sched_b);
        p.hid_w = values(hid_w);
        p.hid_b = values(hid_b);
        p.out_w = values(out_w);
        p.out_b = values(out_b);
        p.sched_mean = values(sched_mean);
        p.sched_std = values(sched_std);
        p.term_scale = values(term_scale);
        p.parallelism = cfg.parallelism;
        p.llc_bytes = cfg.llc_bytes;
        p.multiplier_range = cfg.multiplier_range;
        inference = std::make_unique<InferenceNet>(std::move(p));
        return *inference;
    }

    std::vector<torch::Tensor *> trained() {
        if (cfg.global_prices) return {&out_b, &alloc_log_price};
        if (cfg.schedule_only)
            return {&alg_b, &sched_w, &sched_b, &hid_w, &hid_b, &out_w, &out_b, &alloc_log_price};
        return {&alg_w_raw, &alg_b, &sched_w, &sched_b,        &hid_w,
                &hid_b,     &out_w, &out_b,   &alloc_log_price};
    }

    std::vector<std::pair<std::string, torch::Tensor *>> named() {
        return {{"algorithm_embedding.weight_raw", &alg_w_raw},
                {"algorithm_embedding.bias", &alg_b},
                {"schedule_embedding.weight", &sched_w},
                {"schedule_embedding.bias", &sched_b},
                {"hidden.weight", &hid_w},
                {"hidden.bias", &hid_b},
                {"output.weight", &out_w},
                {"output.bias", &out_b},
                {"schedule_mean", &sched_mean},
                {"schedule_std", &sched_std},
                {"term_scale", &term_scale},
                // Last: files written before it existed hold one tensor less (load: 0).
                {"allocator.log_price", &alloc_log_price}};
    }

    torch::Tensor *find(const std::string &name) {
        for (auto &p : named())
            if (p.first == name) return p.second;
        throw std::invalid_argument("TorchCostModel: no parameter named '" + name + "'");
    }

    Inputs make_inputs(const FeatureBatch &batch) const {
        const size_t N = batch.size();
        if (!batch.algorithm)
            throw std::logic_error("TorchCostModel: FeatureBatch has no algorithm table");
        const auto &table = *batch.algorithm;
        const int64_t T = int64_t(table.size());
        // Only the table entries this batch uses enter the net (a large DAG's table can have
        // hundreds of stages; a batch often touches a few).
        std::vector<int64_t> compact(size_t(T), -1);
        std::vector<int64_t> used;
        Inputs in;
        in.stage = torch::empty({int64_t(N)}, torch::kLong);
        int64_t *st = in.stage.data_ptr<int64_t>();
        for (size_t r = 0; r < N; r++) {
            int id = batch.stage_ids[r];
            if (id < 0 || id >= T)
                throw std::logic_error("TorchCostModel: row " + std::to_string(r) +
                                       " has stage id " + std::to_string(id) +
                                       " outside the algorithm table");
            if (compact[size_t(id)] < 0) {
                compact[size_t(id)] = int64_t(used.size());
                used.push_back(id);
            }
            st[r] = compact[size_t(id)];
        }
        in.algorithm = torch::empty({int64_t(used.size()), A}, torch::kDouble);
        double *a = in.algorithm.data_ptr<double>();
        for (size_t u = 0; u < used.size(); u++) {
            const std::vector<float> &row = table[size_t(used[u])];
            if (row.size() != size_t(A))
                throw std::logic_error("TorchCostModel: algorithm row " + std::to_string(used[u]) +
                                       " has " + std::to_string(row.size()) +
                                       " features, expected " + std::to_string(A));
            for (int k = 0; k < A; k++)
                a[u * size_t(A) + size_t(k)] = InferenceNet::log1p_pos(row[size_t(k)]);
        }
        in.schedule = torch::empty({int64_t(N), S}, torch::kDouble);
        in.terms = torch::empty({int64_t(N), K}, torch::kDouble);
        double *s = in.schedule.data_ptr<double>();
        double *tm = in.terms.data_ptr<double>();
        for (size_t r = 0; r < N; r++) {
            const ScheduleRow &row = batch.schedule[r];
            for (int k = 0; k < S; k++)
                s[r * S + k] = InferenceNet::log1p_pos(row[size_t(k)]);
            TermRow terms = cost_terms(row, cfg.parallelism, cfg.llc_bytes);
            for (int k = 0; k < K; k++)
                tm[r * K + k] = terms[size_t(k)];
        }
        return in;
    }

    /** Seconds per run of the allocator's faults at the learned prices. */
    double allocator_cost(const AllocatorEstimate &e) const {
        const double *p = alloc_log_price.data_ptr<double>();
        return (e.page_faults - e.page_faults_nests) * kMainArenaFaultSeconds * std::exp(p[0]) +
               e.page_faults_nests * kThreadArenaFaultSeconds * std::exp(p[1]);
    }

    /** Per-row predicted seconds [N]; `log_mult`, if given, receives the log multipliers
     * [N, K]. */
    torch::Tensor forward(const Inputs &in, torch::Tensor *log_mult = nullptr) const {
        torch::Tensor a =
            torch::relu(torch::matmul(in.algorithm, torch::softplus(alg_w_raw)) + alg_b);
        a = a.index_select(0, in.stage);
        torch::Tensor x = (in.schedule - sched_mean) / sched_std;
        torch::Tensor s = torch::relu(torch::matmul(x, sched_w) + sched_b);
        torch::Tensor h = torch::relu(torch::matmul(torch::cat({a, s}, 1), hid_w) + hid_b);
        torch::Tensor z = torch::matmul(h, out_w) + out_b;
        torch::Tensor lm = cfg.multiplier_range > 0
                               ? std::log(cfg.multiplier_range) * torch::tanh(z)
                               : torch::log(torch::softplus(z) / kLn2 + 1e-30);
        torch::Tensor mult = torch::exp(lm);
        if (log_mult) *log_mult = lm;
        return (mult * (in.terms * term_scale)).sum(1);
    }

    nlohmann::json manifest() const {
        nlohmann::json m = extra;
        m["model"] = kModelKind;
        m["feature_schema_version"] = kFeatureSchemaVersion;
        m["num_algorithm_features"] = A;
        m["num_schedule_features"] = int(S);
        m["num_cost_terms"] = int(K);
        m["schedule_features"] = schedule_feature_names();
        m["cost_terms"] = cost_term_names();
        m["algorithm_embedding"] = cfg.algorithm_embedding;
        m["schedule_embedding"] = cfg.schedule_embedding;
        m["hidden"] = cfg.hidden;
        m["multiplier_range"] = cfg.multiplier_range;
        m["global_prices"] = cfg.global_prices;
        m["schedule_only"] = cfg.schedule_only;
        m["cost_term_machine"] = {{"parallelism", cfg.parallelism}, {"llc_bytes", cfg.llc_bytes}};
        m["normalization"] = "schedule features: (log1p(max(0,x)) - schedule_mean) / schedule_std";
        return m;
    }

    static std::vector<std::string> schedule_feature_names() {
        std::vector<std::string> v;
        for (const FeatureInfo &f : schedule_schema())
            v.push_back(f.name);
        return v;
    }
    static std::vector<std::string> cost_term_names() {
        std::vector<std::string> v;
        for (int k = 0; k < kNumCostTerms; k++)
            v.push_back(cost_term_name(CostTerm(k)));
        return v;
    }
};

TorchCostModel::TorchCostModel(const TorchModelConfig &config)
    : impl_(std::make_unique<Impl>(config)) {
    if (config.num_threads > 0) torch::set_num_threads(config.num_threads);
}

TorchCostModel::~TorchCostModel() = default;

const TorchModelConfig &TorchCostModel::config() const {
    return impl_->cfg;
}

double TorchCostModel::allocator_cost(const AllocatorEstimate &e) const {
    return impl_->allocator_cost(e);
}

std::vector<double> TorchCostModel::predict_stages(const FeatureBatch &batch) {
    if (batch.size() == 0) return {};
    std::vector<double> out;
    impl_->inference_net().predict(batch, out);
    return out;
}

void TorchCostModel::fit_normalization(const std::vector<const TrainingSample *> &samples) {
    constexpr int S = Impl::S;
    std::vector<double> sum(S, 0.0), sum2(S, 0.0);
    double n = 0;
    for (const TrainingSample *s : samples) {
        for (const ScheduleRow &row : s->schedule) {
            for (int k = 0; k < S; k++) {
                double v = InferenceNet::log1p_pos(row[size_t(k)]);
                sum[size_t(k)] += v;
                sum2[size_t(k)] += v * v;
            }
            n += 1;
        }
    }
    if (n == 0) return;
    std::vector<double> mean(S), sd(S);
    for (int k = 0; k < S; k++) {
        mean[size_t(k)] = sum[size_t(k)] / n;
        double var = std::max(0.0, sum2[size_t(k)] / n - mean[size_t(k)] * mean[size_t(k)]);
        // A (nearly) constant feature keeps unit scale instead of blowing up.
        sd[size_t(k)] = var > 1e-6 ? std::sqrt(var) : 1.0;
    }
    set_parameter("schedule_mean", mean);
    set_parameter("schedule_std", sd);
}

double TorchCostModel::train_step(const std::vector<const TrainingSample *> &samples,
                                  const LossOptions &opt) {
    Impl &m = *impl_;
    if (samples.empty()) return 0;
    if (!m.optimizer) {
        std::vector<torch::Tensor> params;
        for (torch::Tensor *p : m.trained())
            params.push_back(*p);
        m.optimizer = std::make_unique<torch::optim::Adam>(
            params, torch::optim::AdamOptions(opt.learning_rate));
    }
    if (opt.weight_decay > 0) {
        // Decoupled decay (AdamW-style), applied before the Adam step.
        torch::NoGradGuard no_grad;
        for (torch::Tensor *p : m.trained())
            p->mul_(1.0 - opt.learning_rate * opt.weight_decay);
    }
    for (auto &group : m.optimizer->param_groups())
        static_cast<torch::optim::AdamOptions &>(group.options()).lr(opt.learning_rate);

    SampleBatch sb;
    build_sample_batch(samples, sb);
    Inputs in = m.make_inputs(sb.batch);
    const int64_t B = int64_t(samples.size());
    std::vector<double> measured;
    std::vector<int64_t> group;
    std::vector<double> whole; // 1 for a whole schedule, 0 for a partial state
    std::unordered_map<std::string, int64_t> group_of;
    for (const TrainingSample *s : samples) {
        measured.push_back(std::log(s->runtime_seconds));
        // A partial state ranks against the same pipeline's states of as many decided Funcs.
        const std::string key = s->prefix_funcs == 0
                                    ? s->pipeline
                                    : s->pipeline + "@" + std::to_string(s->prefix_funcs);
        auto it = group_of.emplace(key, int64_t(group_of.size())).first;
        group.push_back(it->second);
        whole.push_back(s->prefix_funcs == 0 ? 1.0 : 0.0);
    }
    torch::Tensor state = torch::tensor(
        std::vector<int64_t>(sb.batch.state_index.begin(), sb.batch.state_index.end()),
        torch::kLong);
    torch::Tensor log_mult;
    torch::Tensor rows = m.forward(in, &log_mult);
    // The allocator's faults at the learned prices: the search's cost, not the stages alone.
    std::vector<double> main_faults, nest_faults;
    for (const TrainingSample *s : samples) {
        main_faults.push_back(s->page_faults - s->page_faults_nests);
        nest_faults.push_back(s->page_faults_nests);
    }
    torch::Tensor price =
        torch::exp(m.alloc_log_price) *
        torch::tensor({kMainArenaFaultSeconds, kThreadArenaFaultSeconds}, torch::kDouble);
    torch::Tensor faults = torch::stack(
        {torch::tensor(main_faults, torch::kDouble), torch::tensor(nest_faults, torch::kDouble)},
        1); // [B, 2]
    torch::Tensor pred =
        torch::zeros({B}, torch::kDouble).index_add(0, state, rows) + torch::matmul(faults, price);
    torch::Tensor lp = torch::log(pred + 1e-30);
    torch::Tensor lr = torch::tensor(measured, torch::kDouble);
    torch::Tensor g = torch::tensor(group, torch::kLong);

    // The absolute term fits whole schedules only: a partial state prices only the Funcs
    // decided so far, not the runtime it is labelled with.
    torch::Tensor w = torch::tensor(whole, torch::kDouble);
    torch::Tensor loss =
        opt.absolute_weight * ((lp - lr).pow(2) * w).sum() / torch::clamp_min(w.sum(), 1.0);
    if (opt.ranking == RankingLoss::Throughput)
        loss = loss + throughput_term(lp, lr, g, int64_t(group_of.size()));
    else
        loss = loss + pairwise_term(lp, lr, g, opt);
    if (opt.prior_weight > 0)
        loss = loss + opt.prior_weight * (log_mult.pow(2).mean() + m.alloc_log_price.pow(2).sum());
    m.optimizer->zero_grad();
    loss.backward();
    m.optimizer->step();
    m.inference.reset();
    return loss.item<double>();
}

void TorchCostModel::save(const std::string &path) const {
    std::vector<NamedTensor> tensors;
    for (auto &p : impl_->named()) {
        torch::Tensor t = p.second->detach().contiguous();
        NamedTensor nt;
        nt.name = p.first;
        nt.shape = t.sizes().vec();
        nt.values.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
        tensors.push_back(std::move(nt));
    }
    write_weights_file(path, impl_->manifest(), tensors);
}

void TorchCostModel::load(const std::string &path) {
    nlohmann::json manifest;
    std::vector<NamedTensor> tensors;
    read_weights_file(path, manifest, tensors);
    check_manifest_field(path, manifest, "model", kModelKind);
    check_manifest_field(path, manifest, "feature_schema_version", kFeatureSchemaVersion);
    check_manifest_field(path, manifest, "num_algorithm_features", num_algorithm_features());
    check_manifest_field(path, manifest, "num_schedule_features", kNumScheduleFeatures);
    check_manifest_field(path, manifest, "num_cost_terms", kNumCostTerms);
    check_manifest_field(path, manifest, "schedule_features", Impl::schedule_feature_names());
    check_manifest_field(path, manifest, "cost_terms", Impl::cost_term_names());
    TorchModelConfig cfg = impl_->cfg;
    try {
        cfg.algorithm_embedding = manifest.at("algorithm_embedding").get<int>();
        cfg.schedule_embedding = manifest.at("schedule_embedding").get<int>();
        cfg.hidden = manifest.at("hidden").get<int>();
        // Files written before the bound existed used the unbounded multiplier.
        cfg.multiplier_range = manifest.value("multiplier_range", 0.0);
        cfg.global_prices = manifest.value("global_prices", false);
        cfg.schedule_only = manifest.value("schedule_only", false);
    } catch (const nlohmann::json::exception &e) {
        throw UserError("weights file '" + path +
                        "' is truncated or corrupt: the layer sizes are "
                        "missing (" +
                        std::string(e.what()) + "). Retrain with sextant-train.");
    }
    if (cfg.algorithm_embedding < 1 || cfg.schedule_embedding < 1 || cfg.hidden < 1 ||
        cfg.algorithm_embedding > 4096 || cfg.schedule_embedding > 4096 || cfg.hidden > 4096 ||
        !TorchModelConfig::valid_multiplier_range(cfg.multiplier_range))
        throw UserError("weights file '" + path +
                        "' is truncated or corrupt: bad layer sizes or multiplier range. "
                        "Retrain with sextant-train.");
    auto fresh = std::make_unique<Impl>(cfg);
    auto named = fresh->named();
    // Written before the allocator's learnable prices: the hand-set ones (log price 0).
    if (tensors.size() + 1 == named.size() && named.back().first == "allocator.log_price")
        named.pop_back();
    if (tensors.size() != named.size())
        throw UserError("weights file '" + path + "' does not match this Sextant build: it holds " +
                        std::to_string(tensors.size()) + " tensors, expected " +
                        std::to_string(named.size()) +
                        ". Retrain with sextant-train or use the Sextant version that wrote it.");
    for (size_t i = 0; i < named.size(); i++) {
        const NamedTensor &t = tensors[i];
        torch::Tensor &dst = *named[i].second;
        std::vector<int64_t> want = dst.sizes().vec();
        if (t.name != named[i].first || t.shape != want)
            throw UserError(
                "weights file '" + path + "' does not match this Sextant build: tensor " +
                std::to_string(i) + " differs: expected " + named[i].first + " " +
                nlohmann::json(want).dump() + ", found " + t.name + " " +
                nlohmann::json(t.shape).dump() +
                ". Retrain with sextant-train or use the Sextant version that wrote it.");
        for (double v : t.values)
            if (!std::isfinite(v))
                throw UserError("weights file '" + path + "' is corrupt: tensor " + t.name +
                                " holds a non-finite value. Retrain with sextant-train.");
        torch::NoGradGuard no_grad;
        dst.copy_(torch::tensor(t.values, torch::kDouble).reshape(want));
    }
    // What is left is the file's own entries (metrics, target, ...): not what this model
    // writes itself (fresh's extra is still empty), nor what the file format adds.
    const nlohmann::json own = fresh->manifest();
    for (const auto &entry : own.items())
        manifest.erase(entry.key());
    for (const char *k : {"format_version", "dtype", "tensors", "payload_bytes", "payload_fnv1a64"})
        manifest.erase(k);
    fresh->extra = manifest;
    impl_ = std::move(fresh);
}

void TorchCostModel::save_optimizer_state(const std::string &path) const {
    if (!impl_->optimizer) throw std::logic_error("save_optimizer_state before any train_step");
    try {
        torch::save(*impl_->optimizer, path);
    } catch (const c10::Error &e) {
        throw UserError("cannot write optimizer state '" + path +
                        "': " + e.what_without_backtrace());
    }
}

void TorchCostModel::load_optimizer_state(const std::string &path) {
    Impl &m = *impl_;
    std::vector<torch::Tensor> params;
    for (torch::Tensor *p : m.trained())
        params.push_back(*p);
    auto opt = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(1e-3));
    try {
        torch::load(*opt, path);
    } catch (const c10::Error &e) {
        throw UserError("optimizer state '" + path + "' is missing, truncated or corrupt (" +
                        e.what_without_backtrace() + "). Restart training without --resume.");
    }
    m.optimizer = std::move(opt);
}

void TorchCostModel::set_manifest_entry(const std::string &key, const std::string &json_text) {
    try {
        impl_->extra[key] = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::exception &e) {
        throw std::invalid_argument("set_manifest_entry(" + key + "): not JSON: " + e.what());
    }
}

std::string TorchCostModel::manifest_json() const {
    return impl_->manifest().dump(2);
}

std::vector<std::string> TorchCostModel::parameter_names() const {
    std::vector<std::string> v;
    for (auto &p : impl_->named())
        v.push_back(p.first);
    return v;
}

std::vector<int64_t> TorchCostModel::parameter_shape(const std::string &name) const {
    return impl_->find(name)->sizes().vec();
}

std::vector<double> TorchCostModel::parameter(const std::string &name) const {
    torch::Tensor t = impl_->find(name)->detach().contiguous();
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

void TorchCostModel::set_parameter(const std::string &name, const std::vector<double> &values) {
    torch::Tensor &t = *impl_->find(name);
    if (int64_t(values.size()) != t.numel())
        throw std::invalid_argument("set_parameter(" + name +
                                    "): " + std::to_string(values.size()) + " values, expected " +
                                    std::to_string(t.numel()));
    torch::NoGradGuard no_grad;
    t.copy_(torch::tensor(values, torch::kDouble).reshape(t.sizes()));
    impl_->inference.reset();
}

std::unique_ptr<TrainableCostModel> make_torch_cost_model(const TorchModelConfig &config) {
    return std::make_unique<TorchCostModel>(config);
}

std::unique_ptr<TrainableCostModel> make_torch_cost_model(int parallelism, double llc_bytes) {
    TorchModelConfig c;
    c.parallelism = parallelism;
    c.llc_bytes = llc_bytes;
    return make_torch_cost_model(c);
}

std::unique_ptr<TrainableCostModel> load_torch_cost_model(const std::string &path, int parallelism,
                                                          double llc_bytes, int num_threads) {
    // Read the recorded machine first so that omitted overrides keep the training machine's.
    nlohmann::json manifest;
    std::vector<NamedTensor> tensors;
    read_weights_file(path, manifest, tensors);
    TorchModelConfig c;
    c.num_threads = num_threads;
    if (manifest.contains("cost_term_machine") && manifest["cost_term_machine"].is_object()) {
        const auto &mm = manifest["cost_term_machine"];
        if (mm.contains("parallelism") && mm["parallelism"].is_number_integer())
            c.parallelism = mm["parallelism"].get<int>();
        if (mm.contains("llc_bytes") && mm["llc_bytes"].is_number())
            c.llc_bytes = mm["llc_bytes"].get<double>();
    }
    if (parallelism > 0) c.parallelism = parallelism;
    if (llc_bytes > 0) c.llc_bytes = llc_bytes;
    auto model = std::make_unique<TorchCostModel>(c);
    model->load(path);
    return model;
}

} // namespace sextant
