// The stack-alignment check sextant-fuzz --asm-check runs on each schedule's assembly: it must
// follow %rsp through pushes, frame adjustments and realignment, so that it flags an aligned
// vector move only where the address can be misaligned.
#include "tools/AssemblyCheck.h"

#include <catch2/catch.hpp>

using sextant::find_stack_alignment_hazards;

namespace {

/** The prologue of a function that saves all six callee-saved registers. */
const std::string kSixPushes = "\tpushq\t%rbp\n\tpushq\t%r15\n\tpushq\t%r14\n"
                               "\tpushq\t%r13\n\tpushq\t%r12\n\tpushq\t%rbx\n";

} // namespace

TEST_CASE("a red-zone spill after an even number of pushes is aligned", "[asm]") {
    // rsp = 16k - 8 at entry, minus 6 pushes = 16k - 56; -24(%rsp) = 16k - 80, a multiple of 16.
    const std::string text = "f:\n" + kSixPushes +
                             "\tmovq\t(%rdx), %rax\n"
                             "\tvmovdqa\t%xmm1, -24(%rsp)                # 16-byte Spill\n";
    CHECK(find_stack_alignment_hazards(text).empty());
}

TEST_CASE("a spill 8 bytes off a 16-byte boundary is flagged", "[asm]") {
    // Five pushes: rsp = 16k - 48, so -24(%rsp) = 16k - 72.
    const std::string text =
        "g:\n"
        "\tpushq\t%rbp\n\tpushq\t%r15\n\tpushq\t%r14\n\tpushq\t%r13\n\tpushq\t%rbx\n"
        "\tmovq\t(%rdx), %rax\n"
        "\tvmovaps\t%xmm1, -24(%rsp)\n";
    const auto bad = find_stack_alignment_hazards(text);
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].function == "g");
    CHECK(bad[0].needed == 16);
}

TEST_CASE("a zmm move needs a frame realigned to 64 bytes", "[asm]") {
    const std::string unaligned = "h:\n"
                                  "\tpushq\t%rbp\n\tsubq\t$1608, %rsp\n"
                                  "\tvmovaps\t%zmm1, 64(%rsp)\n";
    CHECK(find_stack_alignment_hazards(unaligned).size() == 1);
    const std::string realigned = "h:\n"
                                  "\tpushq\t%rbp\n\tmovq\t%rsp, %rbp\n\tpushq\t%rbx\n"
                                  "\tandq\t$-64, %rsp\n\tsubq\t$1664, %rsp\n"
                                  "\tvmovaps\t%zmm1, 64(%rsp)\n"
                                  "\tvmovaps\t%zmm1, 1608(%rsp)\n";
    const auto bad = find_stack_alignment_hazards(realigned);
    REQUIRE(bad.size() == 1); // 1664 - 1608 is not a multiple of 64
    CHECK(bad[0].instruction.find("1608") != std::string::npos);
}

TEST_CASE("a block after an epilogue runs in the body's frame", "[asm]") {
    // The epilogue pops back to the entry frame and returns; the next block is still in the
    // body (three pushes: rsp = 16k - 32), where 16(%rsp) is aligned.
    const std::string text = "k:\n"
                             "\tpushq\t%rbp\n\tpushq\t%r14\n\tpushq\t%rbx\n"
                             "\ttestl\t%edi, %edi\n\tje\t.LBB0_2\n"
                             "\tpopq\t%rbx\n\tpopq\t%r14\n\tpopq\t%rbp\n\tretq\n"
                             ".LBB0_2:\n"
                             "\tvmovaps\t%xmm0, 16(%rsp)\n";
    CHECK(find_stack_alignment_hazards(text).empty());
}

TEST_CASE("a prologue after early-exit tests (shrink-wrapping) sets the body's frame", "[asm]") {
    // Six pushes and 504 bytes: rsp = 16k - 8 - 48 - 504 = 16k - 560, so 256(%rsp) is
    // 16k - 304: aligned to 16 in the block after the prologue, as in the fall-through.
    const std::string text = "fuzz:\n"
                             "\ttestq\t%rsi, %rsi\n\tje\t.LBB218_61\n" +
                             kSixPushes +
                             "\tsubq\t$504, %rsp\n"
                             "\tmovq\t40(%rsi), %rdx\n"
                             "\tvmovaps\t%xmm2, 256(%rsp)\n"
                             ".LBB218_5:\n"
                             "\tvmovaps\t%xmm2, 272(%rsp)\n"
                             "\tvmovaps\t%xmm2, 264(%rsp)\n";
    const auto bad = find_stack_alignment_hazards(text);
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].instruction.find("264") != std::string::npos);
}

TEST_CASE("after a dynamic alloca an aligned wide move off %rsp is unverified", "[asm]") {
    const std::string head = "d:\n"
                             "\tpushq\t%rbp\n\tmovq\t%rsp, %rbp\n\tpushq\t%rbx\n"
                             "\tandq\t$-64, %rsp\n\tsubq\t$192, %rsp\n"
                             "\tmovq\t%rsp, %rbx\n";
    // Before it, 64(%rsp) of a 64-aligned frame is fine.
    CHECK(find_stack_alignment_hazards(head + "\tvmovaps\t%zmm0, 64(%rsp)\n").empty());
    // %rsp moved by a register: the zmm move is flagged, an xmm one (the ABI's 16) is not.
    const auto bad = find_stack_alignment_hazards(head + "\tsubq\t%rax, %rsp\n"
                                                         "\tvmovaps\t%zmm0, 64(%rsp)\n"
                                                         "\tvmovaps\t%xmm0, 16(%rsp)\n");
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].needed == 64);
    // An epilogue's restore from %rbp is not a dynamic alloca.
    CHECK(find_stack_alignment_hazards(head + "\tleaq\t-8(%rbp), %rsp\n"
                                              "\tvmovaps\t%zmm0, 64(%rbx)\n")
              .empty());
}
