// WeightsFile: reading and writing the learned model's weights file — a magic line, a one-line
// JSON manifest, then the raw float64 tensors it lists. Checks framing (magic, manifest JSON,
// payload size, checksum) and names the path in every error; the model checks the manifest's
// schema fields. No Torch here. Format: docs/COSTMODEL.md, "Weights file".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
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

} // namespace sextant
