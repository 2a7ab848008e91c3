#include "search/ChildrenAhead.h"

namespace sextant {

ChildrenAhead::ChildrenAhead(size_t parents, Make make, bool threaded, size_t lookahead)
    : parents_(parents), make_(std::move(make)), lookahead_(lookahead < 1 ? 1 : lookahead),
      slot_(parents, Slot::Free), out_(parents), error_(parents) {
    if (threaded && parents > 1) helper_ = std::thread([this] { helper_loop(); });
}

ChildrenAhead::~ChildrenAhead() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    if (helper_.joinable()) helper_.join();
}

void ChildrenAhead::helper_loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
        cv_.wait(lock, [&] {
            return stop_ || !graveyard_.empty() ||
                   (next_ < parents_ && next_ < taken_ + lookahead_);
        });
        if (!graveyard_.empty()) {
            std::vector<StatePtr> dead = std::move(graveyard_);
            graveyard_.clear();
            lock.unlock();
            dead.clear();
            lock.lock();
            continue;
        }
        if (stop_) return;
        make_next(lock, true);
    }
}

void ChildrenAhead::bury(std::vector<StatePtr> &dropped) {
    std::vector<StatePtr> mine;
    {
        std::lock_guard<std::mutex> lock(m_);
        for (StatePtr &s : dropped) {
            if (!s) continue;
            if (s->made_beside && helper_.joinable() && !stop_)
                graveyard_.push_back(std::move(s));
            else
                mine.push_back(std::move(s));
        }
    }
    dropped.clear();
    cv_.notify_all();
}

void ChildrenAhead::make_next(std::unique_lock<std::mutex> &lock, bool beside) {
    const size_t j = next_++;
    slot_[j] = Slot::Making;
    lock.unlock();
    std::vector<StatePtr> out;
    std::exception_ptr error;
    try {
        make_(j, out);
        for (StatePtr &c : out)
            c->made_beside = beside;
    } catch (...) {
        error = std::current_exception();
    }
    lock.lock();
    buffered_ += out.size();
    out_[j] = std::move(out);
    error_[j] = error;
    slot_[j] = Slot::Made;
    cv_.notify_all();
}

std::vector<StatePtr> ChildrenAhead::take(size_t i) {
    std::unique_lock<std::mutex> lock(m_);
    taken_ = i; // the parents before i are taken
    // Until parent i is made, make the first parent no thread has started (i itself when it
    // is that one) rather than wait: both threads make children while i is being made.
    while (slot_[i] != Slot::Made) {
        if (slot_[i] == Slot::Making && (next_ >= parents_ || next_ > i + lookahead_))
            cv_.wait(lock);
        else
            make_next(lock, false);
    }
    taken_ = i + 1;
    std::vector<StatePtr> out = std::move(out_[i]);
    buffered_ -= out.size();
    std::exception_ptr error = error_[i];
    lock.unlock();
    cv_.notify_all(); // the helper may run further ahead now
    if (error) std::rethrow_exception(error);
    return out;
}

size_t ChildrenAhead::buffered() const {
    std::lock_guard<std::mutex> lock(m_);
    return buffered_;
}

} // namespace sextant
