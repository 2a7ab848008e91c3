// Duels (AutotuneOptions::confirm_rounds): a measurement that challenges the best so far is
// re-timed beside it, interleaved, and becomes the best only if it wins; the best stays built
// in WORK/champion/ for the next duel.
#include "measure/Protocol.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <cstdio>

namespace sextant {
namespace autotune_detail {

Proposal foreign_proposal(const json &m) {
    Proposal p;
    p.hash = m.value("hash", "");
    p.scheduler_plugin = m.value("scheduler_plugin", "");
    p.scheduler_name = m.value("scheduler_name", "");
    return p;
}

Proposal Autotuner::champion_proposal() const {
    Proposal c;
    c.hash = best_hash_;
    const fs::path text = dir_ / "schedules" / (best_hash_ + ".txt");
    if (fs::exists(text)) {
        c.text = read_text(text);
        return c;
    }
    for (const json &m : read_json_lines(dir_ / "measurements.jsonl"))
        if (m.value("hash", "") == best_hash_ && m.contains("scheduler_name"))
            c = foreign_proposal(m);
    return c;
}

Duel Autotuner::duel(const fs::path &bdir) {
    Duel d;
    // The best so far stays built in champion/ (its hash in champion/hash); a resumed run, or
    // one whose best came before duels, rebuilds it once.
    const fs::path cdir = champion_dir();
    const bool built = fs::exists(cdir / "pipeline.so") && fs::exists(cdir / "hash") &&
                       read_text(cdir / "hash") == best_hash_;
    if (!built) {
        const Proposal c = champion_proposal();
        if (c.text.empty() && !c.foreign()) return d;
        const Measured b = build(c, cdir);
        if (!b.ok) {
            log("note: the best so far did not rebuild (" + b.error +
                "); a faster measurement becomes the best without a re-timing");
            return d;
        }
        write_file_atomically(cdir / "hash", best_hash_);
    }
    std::vector<SubjectResult> rs = measure_interleaved(
        {timing_subject(bdir), timing_subject(cdir)}, protocol(opt_.confirm_rounds));
    d.held = true;
    // A schedule that fails in the re-timing (a crash) loses; one that beats a failing best
    // wins.
    d.challenger_s = rs[0].ok() ? rs[0].best_s() : 0;
    d.champion_s = rs[1].ok() ? rs[1].best_s() : 0;
    d.won = rs[0].ok() && (!rs[1].ok() || d.challenger_s < d.champion_s);
    char b[200];
    std::snprintf(b, sizeof(b), "  re-timed against the best so far, %d rounds: %s vs %s: %s",
                  opt_.confirm_rounds, rs[0].ok() ? fmt_ms(d.challenger_s).c_str() : "failed",
                  rs[1].ok() ? fmt_ms(d.champion_s).c_str() : "failed",
                  d.won ? "it wins" : "the best stays");
    log(b);
    return d;
}

void Autotuner::keep_champion(const fs::path &bdir) {
    if (opt_.confirm_rounds <= 0) return;
    const fs::path cdir = champion_dir();
    fs::remove_all(cdir);
    fs::create_directories(cdir);
    fs::copy_file(bdir / "pipeline.so", cdir / "pipeline.so");
    write_file_atomically(cdir / "hash", best_hash_);
}

} // namespace autotune_detail
} // namespace sextant
