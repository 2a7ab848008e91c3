// HalideVersion: the glue that differs between Halide releases (14 here: MachineParams and
// the -s/machine_params channel; 15+ replaced them with AutoschedulerParams). Keep it small.
#pragma once

#include "dag/PipelineDag.h"

#include <Halide.h>

namespace sextant {

inline MachineInfo machine_info(const Halide::MachineParams &mp) {
    MachineInfo m;
    m.parallelism = std::max(1, mp.parallelism);
    m.last_level_cache_bytes = int64_t(mp.last_level_cache_size);
    m.balance = double(mp.balance);
    return m;
}

} // namespace sextant
