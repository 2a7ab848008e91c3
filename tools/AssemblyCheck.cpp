#include "tools/AssemblyCheck.h"

#include <regex>
#include <sstream>

namespace sextant {

std::vector<StackAlignmentHazard> find_stack_alignment_hazards(const std::string &assembly) {
    static const std::regex label(R"(^([A-Za-z_$][A-Za-z0-9_.$]*):)");
    static const std::regex realign(R"(^\s*andq?\s+\$-([0-9]+),\s*%rsp)");
    static const std::regex aligned_move(
        R"(^\s*(v?movap[sd]|v?movdqa(32|64)?|v?movntp[sd]|v?movntdq)\s+([^#]*))");
    static const std::regex stack_operand(R"((-?[0-9]+)?\(%rsp\))");
    static const std::regex vector_register(R"(%([xyz])mm[0-9]+)");
    std::vector<StackAlignmentHazard> out;
    std::istringstream in(assembly);
    std::string function;
    int frame = 16; // what the ABI gives a function at its entry (after the call's push)
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        // Instructions are short; long lines are data (strings, tables), and std::regex
        // recurses per character.
        if (line.size() > 512) continue;
        if (std::regex_search(line, m, label) && line[0] != '.') {
            function = m[1];
            frame = 16;
            continue;
        }
        if (std::regex_search(line, m, realign)) {
            frame = std::max(frame, std::stoi(m[1]));
            continue;
        }
        if (!std::regex_search(line, m, aligned_move)) continue;
        const std::string operands = m[3];
        std::smatch mem, reg;
        if (!std::regex_search(operands, mem, stack_operand)) continue;
        if (!std::regex_search(operands, reg, vector_register)) continue;
        const char kind = reg[1].str()[0];
        const int needed = kind == 'z' ? 64 : kind == 'y' ? 32 : 16;
        const long offset = mem[1].matched ? std::stol(mem[1]) : 0;
        if (needed <= frame && offset % needed == 0) continue;
        size_t first = line.find_first_not_of(" \t");
        out.push_back({function, line.substr(first), needed, frame});
    }
    return out;
}

} // namespace sextant
