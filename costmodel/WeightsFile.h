// WeightsFile: reading and writing the learned model's weights file — a magic line, a one-line
// JSON manifest, then the raw float64 tensors it lists. Checks framing (magic, manifest JSON,
// payload size, checksum) and names the path in every error; the model checks the manifest's
// schema fields. No Torch here. Format: docs/COSTMODEL.md, "Weights file".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sextant {

/** First line of every weights file. */
constexpr const char *kWeightsMagic = "SEXTANT-WEIGHTS";
/** Version of the container layout (not of the features: that is kFeatureSchemaVersion). */
constexpr int kWeightsFormatVersion = 1;

struct NamedTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<double> values; // row-major, product(shape) elements
};

/** Writes atomically (a temporary beside `path`, then rename). Adds "format_version",
 * "tensors", "payload_bytes" and "payload_fnv1a64" to `manifest`. Throws UserError. */
void write_weights_file(const std::string &path, nlohmann::json manifest,
                        const std::vector<NamedTensor> &tensors);

/** Reads and checks the framing; throws UserError naming `path` for a missing, truncated or
 * corrupt file. Never returns partially read data. */
void read_weights_file(const std::string &path, nlohmann::json &manifest,
                       std::vector<NamedTensor> &tensors);

/** Throws UserError if manifest[field] != expected: names the path, the field, both values
 * and what to do. */
void check_manifest_field(const std::string &path, const nlohmann::json &manifest,
                          const std::string &field, const nlohmann::json &expected);

/** The `model` of an ensemble weights file: no tensors of its own; it names member weights
 * files and how their predictions combine (costmodel/EnsembleModel.h). */
constexpr const char *kEnsembleModel = "sextant-cost-ensemble-v1";

/** What an ensemble weights file holds. */
struct EnsembleSpec {
    /** Member weights files, resolved against the ensemble file's directory when relative;
     * "analytical" names the analytical model. */
    std::vector<std::string> members;
    /** Standard deviations of the members' log predictions a stage's prediction is raised by
     * (0: their geometric mean). */
    double caution = 0;
};

/** Writes an ensemble weights file naming `members` as given (relative paths are read against
 * `path`'s directory), with `manifest`'s other fields (training notes, metrics). */
void write_ensemble_file(const std::string &path, const EnsembleSpec &spec,
                         nlohmann::json manifest = nlohmann::json::object());

/** The ensemble in `path` with its members' paths resolved, or nullopt when `path` is any other
 * weights file. Throws UserError naming the path when the file cannot be read, is corrupt, or
 * is an ensemble without members or with a caution that is not a finite number >= 0. */
std::optional<EnsembleSpec> read_ensemble_file(const std::string &path);

} // namespace sextant
