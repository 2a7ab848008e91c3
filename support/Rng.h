// Rng: SplitMix64, the project's one deterministic random source, and its finalizer as a
// 64-bit mixer for hashes. Same seed -> same sequence on every platform and standard library.
// An Rng is passed by reference, never global; it is not a cryptographic generator. Used by
// the search (dropout, reservoir picks), its state hashes, and the random pipeline generator.
#pragma once

#include <cstdint>
#include <vector>

namespace sextant {

constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull; ///< SplitMix64's increment

/** SplitMix64's output function: a well-mixed 64-bit function of one 64-bit value. */
inline uint64_t splitmix64_finalize(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/** The SplitMix64 output for state `z` (one step from z - gamma): a mixer for seeds/keys. */
inline uint64_t mix64(uint64_t z) {
    return splitmix64_finalize(z + kGoldenGamma);
}

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}

    /** Next raw 64-bit value. */
    uint64_t next() { return splitmix64_finalize(state_ += kGoldenGamma); }

    /** In [0, n) by remainder (n > 0): cheap, with a bias of at most n / 2^64. */
    uint64_t below(uint64_t n) { return next() % n; }

    /** Uniform integer in [lo, hi] (inclusive); lo <= hi. Uses 128-bit multiply-shift. */
    int64_t uniform(int64_t lo, int64_t hi) {
        const uint64_t span = uint64_t(hi - lo) + 1;
        if (span == 0) return int64_t(next());
        const unsigned __int128 m = (unsigned __int128)next() * span;
        return lo + int64_t(uint64_t(m >> 64));
    }

    /** Uniform double in [0, 1) with 53 random bits. */
    double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

    /** True with probability p. */
    bool chance(double p) { return unit() < p; }

    /** Index chosen with probability proportional to weights[i] (all >= 0, sum > 0). */
    int weighted(const std::vector<double> &weights) {
        double total = 0;
        for (double w : weights)
            total += w;
        double u = unit() * total;
        for (size_t i = 0; i < weights.size(); i++) {
            if (u < weights[i]) return int(i);
            u -= weights[i];
        }
        for (size_t i = weights.size(); i-- > 0;)
            if (weights[i] > 0) return int(i);
        return 0;
    }

    /** An element of a non-empty vector, uniformly. */
    template <typename T> const T &pick(const std::vector<T> &v) {
        return v[size_t(uniform(0, int64_t(v.size()) - 1))];
    }

private:
    uint64_t state_;
};

} // namespace sextant
