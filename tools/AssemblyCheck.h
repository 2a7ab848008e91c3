// AssemblyCheck: finds aligned vector moves to or from stack slots that the function's frame
// does not align, in x86-64 AT&T assembly (Halide's `-e assembly`, compile_to_assembly). An
// aligned move (vmovaps, vmovdqa64, ...) of an N-byte register faults unless its address is a
// multiple of N; an address `off(%rsp)` is one only if the function realigned %rsp to at least
// N bytes (`andq $-N, %rsp`; the ABI gives 16 at a call) and `off` is a multiple of N.
#pragma once

#include <string>
#include <vector>

namespace sextant {

struct StackAlignmentHazard {
    std::string function;    // the label of the function it is in
    std::string instruction; // the instruction, trimmed
    int needed = 0;          // bytes of alignment the move needs
    int frame_alignment = 0; // bytes the function's frame guarantees for %rsp
};

/** Every aligned vector move between a register and `off(%rsp)` in `assembly` whose address
 * is not guaranteed to be aligned as the move needs. */
std::vector<StackAlignmentHazard> find_stack_alignment_hazards(const std::string &assembly);

} // namespace sextant
