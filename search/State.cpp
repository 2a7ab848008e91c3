#include "search/State.h"

#include "support/Rng.h"

namespace sextant {

uint64_t hash_mix(uint64_t h, uint64_t v) {
    return splitmix64_finalize(h ^ (v + kGoldenGamma + (h << 6) + (h >> 2)));
}

uint64_t placement_key(const FuncSched &fs) {
    return uint64_t(fs.placement) * 262144 + uint64_t(fs.at_func + 1) * 4096 +
           uint64_t(fs.at_level + 1) * 64 + uint64_t(fs.store_level + 1) +
           uint64_t(fs.at_stage) * 0x100000000ULL;
}

} // namespace sextant
