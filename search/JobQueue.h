// JobQueue: jobs run one at a time, in the order they were pushed, on one thread of their own,
// so the search can make the next children while the last ones are scored and selected.
// Without a thread (`threaded` false) each job runs inside push(): the same work in the same
// order, on the caller's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace sextant {

class JobQueue {
public:
    explicit JobQueue(bool threaded);
    ~JobQueue(); // drops the jobs not yet started, waits for the running one
    JobQueue(const JobQueue &) = delete;
    JobQueue &operator=(const JobQueue &) = delete;

    /** Queues `job`; returns its ticket (1, 2, ... in push order). If an earlier job threw,
     * the queue holds no more jobs and this rethrows that exception instead (once). */
    uint64_t push(std::function<void()> job);
    /** Waits until the job with `ticket` (and so every job before it) has run; rethrows what
     * a job threw. */
    void wait(uint64_t ticket);
    /** Waits until every queued job has run; rethrows what a job threw. */
    void drain() { wait(pushed_); }
    /** Drops the jobs not yet started, waits for the running one, forgets any error: for an
     * owner that unwinds while jobs refer to it. */
    void abandon();
    bool threaded() const { return thread_.joinable(); }

private:
    void loop();
    void rethrow_error(); // with mutex_ held

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::deque<std::function<void()>> jobs_;
    uint64_t pushed_ = 0, finished_ = 0;
    bool running_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

} // namespace sextant
