// Errors: the user-facing error type. A UserError is the user's to fix (missing estimate,
// unsupported construct, bad parameter or weights file); its message says what and how.
// Invariant violations use internal assertions instead; measurement failures are data.
#pragma once

#include <stdexcept>
#include <string>

namespace sextant {

class UserError : public std::runtime_error {
public:
    explicit UserError(const std::string &what) : std::runtime_error(what) {}
};

} // namespace sextant
