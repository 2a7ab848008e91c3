// DagJson: the PipelineDag as JSON (for the debug dump option and for tests). Write-only.
#pragma once

#include "PipelineDag.h"

#include <nlohmann/json.hpp>

namespace sextant {

nlohmann::json dag_to_json(const PipelineDag &dag);

} // namespace sextant
