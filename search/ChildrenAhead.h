// ChildrenAhead: makes the beam's children on a helper thread a few parents ahead of the
// search, which takes them parent by parent in beam order. Making children (copying the
// parent, building loop nests) is most of a long search's making thread (session 44:
// bilateral_guided_upsampling ~73% of the CPU on that thread, the scoring thread ~27%), so
// with a helper both the search and the helper make children while the scorer scores. Each
// parent's children are made by one thread in the same order as alone, and the search takes
// them in beam order: the same children reach the beam in the same order, whichever thread
// made them.
#pragma once

#include "search/State.h"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sextant {

class ChildrenAhead {
public:
    /** `make(i, out)` appends parent i's children to `out`; it may run on the helper thread
     * and on the caller's, for different parents at once. Without `threaded` every parent's
     * children are made in take(). The helper makes at most `lookahead` parents past the
     * last one taken. */
    using Make = std::function<void(size_t, std::vector<StatePtr> &)>;
    ChildrenAhead(size_t parents, Make make, bool threaded, size_t lookahead);
    /** Stops the helper after the parent it is making (children not taken are dropped, and
     * the states buried and not yet freed are freed here). */
    ~ChildrenAhead();
    ChildrenAhead(const ChildrenAhead &) = delete;
    ChildrenAhead &operator=(const ChildrenAhead &) = delete;

    /** Parent i's children (i = 0, 1, 2, ... in turn), made here if the helper has not
     * started them (or makes later parents while the helper makes i); rethrows what making them
     * threw. */
    std::vector<StatePtr> take(size_t i);
    /** Children made and not yet taken (for the search's memory count). */
    size_t buffered() const;
    /** Hands dropped states back: those the helper made (State::made_beside) are freed on it
     * while it runs, the others here. */
    void bury(std::vector<StatePtr> &dropped);

private:
    enum class Slot { Free, Making, Made };
    void helper_loop();
    /** Makes the first parent no thread has started (`beside`: on the helper); `lock` is held
     * on entry and exit. */
    void make_next(std::unique_lock<std::mutex> &lock, bool beside);

    const size_t parents_;
    const Make make_;
    const size_t lookahead_;
    mutable std::mutex m_;
    std::condition_variable cv_;
    std::vector<Slot> slot_;
    std::vector<std::vector<StatePtr>> out_;
    std::vector<std::exception_ptr> error_;
    std::vector<StatePtr> graveyard_; // dropped states the helper made, for it to free
    size_t next_ = 0;                 // the first parent no thread has started
    size_t taken_ = 0;                // parents taken so far
    size_t buffered_ = 0;
    bool stop_ = false;
    std::thread helper_;
};

} // namespace sextant
