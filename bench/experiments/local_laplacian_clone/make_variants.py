#!/usr/bin/env python3
"""Writes the experiment's generator sources: GEN.cpp with a schedule() that applies the
emitted .schedule.h (edited per variant) and then clone_variant.h. Edits are by Func name, so
any Sextant schedule of local_laplacian works.

    make_variants.py local_laplacian.cpp FN.schedule.h FN OUT_DIR
"""
import re
import sys

gen, sched, fn, out = sys.argv[1:5]
src = open(gen).read()
lines = open(sched).read().split("\n")
V = "::Halide::Var"


def without(ls, func):
    return [l for l in ls if not l.startswith("    f_%s." % func)]


def insert_before_end(ls, new):
    i = max(k for k, l in enumerate(ls) if l.strip() == "(void)target;")
    return ls[:i] + new + ls[i:]


GRAY = ["    f_gray.compute_inline();"]
STRIP = [  # g_pyr_1 and out_up_0_ux computed in output's row strip, on the stack
    '    f_g_pyr_1.compute_at(funcs.at("output"), %s("y_o"));' % V,
    '    f_g_pyr_1.vectorize(%s("x"), 16);' % V,
    "    f_g_pyr_1.store_in(MemoryType::Stack);",
    "    f_g_pyr_1_dx.store_in(MemoryType::Stack);",
    '    f_out_up_0_ux.compute_at(funcs.at("output"), %s("y_o"));' % V,
    '    f_out_up_0_ux.split(%s("x"), %s("x_o"), %s("x_i"), 256);' % (V, V, V),
    '    f_out_up_0_ux.reorder({%s("x_i"), %s("y"), %s("x_o")});' % (V, V, V),
    '    f_out_up_0_ux.vectorize(%s("x_i"), 16);' % V,
    "    f_out_up_0_ux.store_in(MemoryType::Stack);",
]
variants = {
    "gray": (insert_before_end(without(lines, "gray"), GRAY), 0),
    "clone": (insert_before_end(without(without(lines, "g_pyr_1"), "out_up_0_ux"), STRIP), 8),
    "clone_gray": (insert_before_end(without(without(without(lines, "g_pyr_1"), "out_up_0_ux"),
                                             "gray"), STRIP + GRAY), 8),
}
for name, (ls, bits) in variants.items():
    open("%s/sched_%s.h" % (out, name), "w").write("\n".join(ls))
    s = src.replace('#include "Halide.h"',
                    '#include "Halide.h"\n#include "sched_%s.h"\n#include "clone_variant.h"' % name)
    s = s.replace("public:\n", "public:\n    void schedule() {\n        Pipeline p = get_pipeline();\n"
                  "        apply_schedule_%s(p, get_target());\n        apply_variant(p, %d);\n    }\n"
                  % (fn, bits), 1)
    s = s.replace("HALIDE_REGISTER_GENERATOR(LocalLaplacian, local_laplacian)",
                  "HALIDE_REGISTER_GENERATOR(LocalLaplacian, llexp)")
    open("%s/gen_%s.cpp" % (out, name), "w").write(s)
