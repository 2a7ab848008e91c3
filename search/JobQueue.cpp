#include "JobQueue.h"

namespace sextant {

JobQueue::JobQueue(bool threaded) {
    if (threaded) thread_ = std::thread([this] { loop(); });
}

JobQueue::~JobQueue() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        jobs_.clear();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

uint64_t JobQueue::push(std::function<void()> job) {
    if (!thread_.joinable()) {
        // Inline: the job runs now, as it would have run next on the thread.
        if (error_) rethrow_error();
        pushed_++;
        try {
            job();
        } catch (...) {
            finished_ = pushed_;
            throw;
        }
        finished_ = pushed_;
        return pushed_;
    }
    uint64_t ticket;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_) rethrow_error();
        jobs_.push_back(std::move(job));
        ticket = ++pushed_;
    }
    wake_.notify_one();
    return ticket;
}

void JobQueue::wait(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_ >= ticket || error_; });
    if (error_) rethrow_error();
}

void JobQueue::abandon() {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_ += jobs_.size();
    jobs_.clear();
    done_.wait(lock, [&] { return !running_; });
    error_ = nullptr;
}

void JobQueue::rethrow_error() {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
}

void JobQueue::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        running_ = true;
        lock.unlock();
        std::exception_ptr failed;
        try {
            job();
        } catch (...) {
            failed = std::current_exception();
        }
        job = nullptr; // what the job held goes here, not under the lock
        lock.lock();
        running_ = false;
        finished_++;
        if (failed) {
            // The jobs after a failed one are dropped: they build on its work.
            finished_ += jobs_.size();
            jobs_.clear();
            error_ = failed;
        }
        done_.notify_all();
    }
}

} // namespace sextant
