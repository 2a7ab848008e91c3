#include "WeightsFile.h"

#include "costmodel/TrainingData.h"
#include "support/Errors.h"
#include "support/Files.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace sextant {

namespace {

uint64_t fnv1a(const char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex64(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
    return buf;
}

const char *kRetrainAdvice =
    "Retrain with sextant-train (docs/COSTMODEL.md) or use the Sextant version that wrote it.";

[[noreturn]] void corrupt(const std::string &path, const std::string &what) {
    throw UserError("weights file '" + path + "' is truncated or corrupt: " + what + ". " +
                    kRetrainAdvice);
}

int64_t element_count(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

} // namespace

void write_weights_file(const std::string &path, nlohmann::json manifest,
                        const std::vector<NamedTensor> &tensors) {
    std::string payload;
    nlohmann::json list = nlohmann::json::array();
    for (const NamedTensor &t : tensors) {
        if (element_count(t.shape) != int64_t(t.values.size()))
            throw std::logic_error("write_weights_file: tensor " + t.name + " shape/size mismatch");
        list.push_back({{"name", t.name}, {"shape", t.shape}});
        payload.append(reinterpret_cast<const char *>(t.values.data()),
                       t.values.size() * sizeof(double));
    }
    manifest["format_version"] = kWeightsFormatVersion;
    manifest["dtype"] = "float64-le";
    manifest["tensors"] = list;
    manifest["payload_bytes"] = payload.size();
    manifest["payload_fnv1a64"] = hex64(fnv1a(payload.data(), payload.size()));
    write_file_atomically(path,
                          std::string(kWeightsMagic) + "\n" + manifest.dump() + "\n" + payload);
}

void read_weights_file(const std::string &path, nlohmann::json &manifest_out,
                       std::vector<NamedTensor> &tensors_out) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw UserError("cannot open weights file '" + path +
                        "'. Check HL_WEIGHTS_DIR / the path, or train one with sextant-train.");
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t nl1 = bytes.find('\n');
    if (nl1 == std::string::npos || bytes.compare(0, nl1, kWeightsMagic) != 0)
        corrupt(path, std::string("it does not start with the line \"") + kWeightsMagic + "\"");
    size_t nl2 = bytes.find('\n', nl1 + 1);
    if (nl2 == std::string::npos) corrupt(path, "the manifest line is incomplete");
    nlohmann::json manifest;
    try {
        manifest = nlohmann::json::parse(bytes.begin() + long(nl1) + 1, bytes.begin() + long(nl2));
    } catch (const nlohmann::json::exception &e) {
        corrupt(path, std::string("the manifest is not valid JSON (") + e.what() + ")");
    }
    std::vector<NamedTensor> tensors;
    uint64_t payload_bytes = 0;
    std::string checksum;
    try {
        int fv = manifest.at("format_version").get<int>();
        if (fv != kWeightsFormatVersion)
            throw UserError("weights file '" + path +
                            "': field \"format_version\" differs: expected " +
                            std::to_string(kWeightsFormatVersion) + ", found " +
                            std::to_string(fv) + ". " + kRetrainAdvice);
        if (manifest.at("dtype").get<std::string>() != "float64-le")
            corrupt(path, "unknown dtype " + manifest.at("dtype").dump());
        payload_bytes = manifest.at("payload_bytes").get<uint64_t>();
        checksum = manifest.at("payload_fnv1a64").get<std::string>();
        for (const auto &t : manifest.at("tensors")) {
            NamedTensor nt;
            nt.name = t.at("name").get<std::string>();
            nt.shape = t.at("shape").get<std::vector<int64_t>>();
            for (int64_t d : nt.shape)
                if (d < 0 || d > (int64_t(1) << 28))
                    corrupt(path, "tensor " + nt.name + " has a bad shape");
            tensors.push_back(std::move(nt));
        }
    } catch (const nlohmann::json::exception &e) {
        corrupt(path, std::string("a manifest field is missing or has the wrong type (") +
                          e.what() + ")");
    }
    size_t have = bytes.size() - (nl2 + 1);
    if (have != payload_bytes)
        corrupt(path, "the manifest announces " + std::to_string(payload_bytes) +
                          " bytes of tensors but the file holds " + std::to_string(have));
    const char *payload = bytes.data() + nl2 + 1;
    if (hex64(fnv1a(payload, have)) != checksum)
        corrupt(path, "the tensor data does not match its checksum");
    uint64_t offset = 0;
    for (NamedTensor &t : tensors) {
        uint64_t n = uint64_t(element_count(t.shape));
        if (offset + n * sizeof(double) > have)
            corrupt(path, "tensor " + t.name + " runs past the end of the data");
        t.values.resize(n);
        std::memcpy(t.values.data(), payload + offset, n * sizeof(double));
        offset += n * sizeof(double);
    }
    if (offset != have) corrupt(path, "the tensor list does not cover the data");
    manifest_out = std::move(manifest);
    tensors_out = std::move(tensors);
}

void check_manifest_field(const std::string &path, const nlohmann::json &manifest,
                          const std::string &field, const nlohmann::json &expected) {
    std::string found = manifest.contains(field) ? manifest[field].dump() : "(missing)";
    if (!manifest.contains(field) || manifest[field] != expected)
        throw UserError("weights file '" + path + "' does not match this Sextant build: field \"" +
                        field + "\" differs: expected " + expected.dump() + ", found " + found +
                        ". " + kRetrainAdvice);
}

void write_ensemble_file(const std::string &path, const EnsembleSpec &spec,
                         nlohmann::json manifest) {
    if (spec.members.empty() || !std::isfinite(spec.caution) || spec.caution < 0)
        throw std::logic_error("write_ensemble_file: no members or a bad caution");
    manifest["model"] = kEnsembleModel;
    manifest["members"] = spec.members;
    manifest["caution"] = spec.caution;
    write_weights_file(path, std::move(manifest), {});
}

std::optional<EnsembleSpec> read_ensemble_file(const std::string &path) {
    // The magic line and the manifest decide; a net's tensors are left to its loader.
    std::ifstream f(path, std::ios::binary);
    std::string magic, line;
    if (!f || !std::getline(f, magic) || magic != kWeightsMagic || !std::getline(f, line) ||
        line.find(kEnsembleModel) == std::string::npos)
        return std::nullopt;
    nlohmann::json manifest;
    std::vector<NamedTensor> tensors;
    read_weights_file(path, manifest, tensors);
    if (manifest.value("model", std::string()) != kEnsembleModel) return std::nullopt;
    EnsembleSpec spec;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    try {
        for (const auto &m : manifest.at("members")) {
            const std::string member = m.get<std::string>();
            const std::filesystem::path p(member);
            spec.members.push_back(member == "analytical" || p.is_absolute() ? member
                                                                             : (dir / p).string());
        }
        spec.caution = manifest.at("caution").get<double>();
    } catch (const nlohmann::json::exception &e) {
        corrupt(path, std::string("the ensemble's \"members\" or \"caution\" is missing or has "
                                  "the wrong type (") +
                          e.what() + ")");
    }
    if (spec.members.empty()) corrupt(path, "the ensemble names no members");
    if (!std::isfinite(spec.caution) || spec.caution < 0)
        corrupt(path, "the ensemble's caution is not a finite number >= 0");
    return spec;
}

} // namespace sextant
