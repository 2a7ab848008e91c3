// Rng: the random pipeline generator's own deterministic random source (SplitMix64).
// Same seed -> same sequence on every platform and standard library; it is passed by
// reference and never global. It is not a cryptographic generator.
#pragma once

#include <cstdint>
#include <vector>

namespace sextant {
namespace random_pipelines {

/** SplitMix64 finaliser: a well-mixed 64-bit function of one 64-bit value. */
inline uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}

    /** Next raw 64-bit value. */
    uint64_t next() {
        state_ += 0x9e3779b97f4a7c15ull;
        uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    /** Uniform integer in [lo, hi] (inclusive); lo <= hi. Uses 128-bit multiply-shift. */
    int64_t uniform(int64_t lo, int64_t hi) {
        uint64_t span = uint64_t(hi - lo) + 1;
        if (span == 0) {
            return int64_t(next());
        }
        unsigned __int128 m = (unsigned __int128)next() * span;
        return lo + int64_t(uint64_t(m >> 64));
    }

    /** Uniform double in [0, 1) with 53 random bits. */
    double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

    /** True with probability p. */
    bool chance(double p) { return unit() < p; }

    /** Index chosen with probability proportional to weights[i] (all >= 0, sum > 0). */
    int weighted(const std::vector<double> &weights) {
        double total = 0;
        for (double w : weights) {
            total += w;
        }
        double u = unit() * total;
        for (size_t i = 0; i < weights.size(); i++) {
            if (u < weights[i]) {
                return int(i);
            }
            u -= weights[i];
        }
        for (size_t i = weights.size(); i-- > 0;) {
            if (weights[i] > 0) {
                return int(i);
            }
        }
        return 0;
    }

    /** An element of a non-empty vector, uniformly. */
    template <typename T> const T &pick(const std::vector<T> &v) {
        return v[size_t(uniform(0, int64_t(v.size()) - 1))];
    }

private:
    uint64_t state_;
};

} // namespace random_pipelines
} // namespace sextant
