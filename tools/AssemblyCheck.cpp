#include "tools/AssemblyCheck.h"

#include <regex>
#include <sstream>

namespace sextant {

namespace {

// Where %rsp stands, as `rsp = base - below` with `base` a multiple of `align` bytes. At a
// function's entry the ABI gives a 16-byte aligned %rsp before the call pushed the return
// address, so rsp = base - 8.
struct StackPointer {
    int align = 16;
    long below = 8;
};

} // namespace

std::vector<StackAlignmentHazard> find_stack_alignment_hazards(const std::string &assembly) {
    static const std::regex function_label(R"(^([A-Za-z_$][A-Za-z0-9_.$]*):)");
    static const std::regex block_label(R"(^\.L[A-Za-z0-9_.$]*:)");
    static const std::regex realign(R"(^\s*andq?\s+\$-([0-9]+),\s*%rsp)");
    static const std::regex push_pop(R"(^\s*(push|pop)q?\s)");
    static const std::regex adjust(R"(^\s*(sub|add)q?\s+\$(-?[0-9]+),\s*%rsp)");
    // %rsp moved by a run-time amount (a dynamic alloca): not an epilogue's restore from %rbp.
    static const std::regex dynamic(R"(^\s*(mov|sub|add|lea)q?\s+([^$][^,]*),\s*%rsp\s*($|#))");
    static const std::regex aligned_move(
        R"(^\s*(v?movap[sd]|v?movdqa(32|64)?|v?movntp[sd]|v?movntdq)\s+([^#]*))");
    static const std::regex stack_operand(R"((-?[0-9]+)?\(%rsp\))");
    static const std::regex vector_register(R"(%([xyz])mm[0-9]+)");
    std::vector<StackAlignmentHazard> out;
    std::istringstream in(assembly);
    std::string function;
    StackPointer sp;   // as of the current instruction
    StackPointer body; // after the prologue: what every later basic block starts from
    // Before the prologue (LLVM's shrink-wrapping puts early-exit tests first), in it (pushes,
    // frame adjustments, realignment), or after it.
    enum { Before, In, After } phase = Before;
    // After a dynamic alloca, nothing here knows %rsp's alignment beyond the ABI's 16 bytes
    // (LLVM has addressed aligned zmm stores off such a %rsp: llvm/llvm-project#91565).
    bool dynamic_rsp = false;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        // Instructions are short; long lines are data (strings, tables), and std::regex
        // recurses per character.
        if (line.size() > 512) continue;
        if (std::regex_search(line, m, function_label)) {
            function = m[1];
            sp = body = StackPointer{};
            phase = Before;
            dynamic_rsp = false;
            continue;
        }
        // A block may follow an epilogue (pops, ret) in the text; it runs in the body's frame.
        if (std::regex_search(line, block_label)) {
            if (phase == After) sp = body;
            continue;
        }
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '.' || line[first] == '#') continue;
        if (std::regex_search(line, m, realign)) {
            sp.align = std::max(sp.align, std::stoi(m[1]));
            sp.below = 0;
        } else if (std::regex_search(line, m, dynamic) &&
                   m[2].str().find("%rbp") == std::string::npos) {
            dynamic_rsp = true;
        } else if (std::regex_search(line, m, push_pop)) {
            sp.below += m[1] == "push" ? 8 : -8;
        } else if (std::regex_search(line, m, adjust)) {
            const long n = std::stol(m[2]);
            sp.below += m[1] == "sub" ? n : -n;
        }
        const bool adjusts = std::regex_search(line, realign) ||
                             std::regex_search(line, push_pop) || std::regex_search(line, adjust);
        if (adjusts && phase == Before) phase = In;
        if (!adjusts && phase == In && line.find("%rsp, %rbp") == std::string::npos) {
            phase = After;
            body = sp;
        }
        if (!std::regex_search(line, m, aligned_move)) continue;
        const std::string operands = m[3];
        std::smatch mem, reg;
        if (!std::regex_search(operands, mem, stack_operand)) continue;
        if (!std::regex_search(operands, reg, vector_register)) continue;
        const char kind = reg[1].str()[0];
        const int needed = kind == 'z' ? 64 : kind == 'y' ? 32 : 16;
        const long offset = mem[1].matched ? std::stol(mem[1]) : 0;
        // The address is base - below + offset; base is a multiple of sp.align.
        const long from_base = offset - sp.below;
        const bool known = !dynamic_rsp || needed <= 16;
        if (known && needed <= sp.align && ((from_base % needed) + needed) % needed == 0) continue;
        out.push_back({function, line.substr(first), needed, sp.align});
    }
    return out;
}

} // namespace sextant
