// The worker pool behind parallel_for (parallel.hpp): a queue of jobs whose indices are claimed
// one at a time by the workers and by the job's own caller.
#include "smlab/parallel.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace smlab {
namespace {

struct Job {
  void (*call)(const void*, int) = nullptr;
  const void* task = nullptr;
  int count = 0;
  std::atomic<int> next{0};      // the next unclaimed index
  std::atomic<int> finished{0};  // indices done; the caller's stack frame holds the Job until count
  std::mutex error_mutex;
  std::exception_ptr error;

  // Runs one claimed index; true when it was the job's last.
  bool run(int index) {
    try {
      call(task, index);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
    // Nothing of the Job may be touched after this: its caller may return as soon as it sees count.
    return finished.fetch_add(1, std::memory_order_acq_rel) + 1 == count;
  }
};

class Pool {
 public:
  explicit Pool(int workers) {
    for (int w = 0; w < workers; ++w)
      workers_.emplace_back([this] {
        // Normal priority, like the app's evaluator thread: below it (nice 5) the pool's half of
        // a recompute lost the core to any other busy program. Set explicitly, so a
        // pool started from a lowered thread does not inherit its nice value.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 0);
        work();
      });
  }
  // Never destroyed (see pool()): workers blocked in wait at exit are simply ended with the process.
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void run(Job& job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(&job);
    }
    // Wake at most as many workers as there are indices besides the one the caller takes.
    const int wanted = std::min(job.count - 1, static_cast<int>(workers_.size()));
    for (int w = 0; w < wanted; ++w) wake_.notify_one();
    for (int index = job.next.fetch_add(1); index < job.count; index = job.next.fetch_add(1))
      if (job.run(index)) break;
    std::unique_lock lock(mutex_);
    // Every index is claimed by now, so no worker can pick the job up again after this.
    if (const auto it = std::find(jobs_.begin(), jobs_.end(), &job); it != jobs_.end()) jobs_.erase(it);
    done_.wait(lock, [&] { return job.finished.load(std::memory_order_acquire) == job.count; });
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !jobs_.empty(); });
      Job* job = jobs_.front();
      // Claimed under the lock: a job still queued has a caller waiting for it, so it is alive.
      const int index = job->next.fetch_add(1);
      if (index >= job->count) {
        jobs_.pop_front();  // exhausted: its remaining indices are running elsewhere
        continue;
      }
      lock.unlock();
      const bool last = job->run(index);
      lock.lock();
      if (last) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;  // a job was queued
  std::condition_variable done_;  // some job's last index finished
  std::deque<Job*> jobs_;
  std::vector<std::jthread> workers_;
};

Pool& pool() {
  // Leaked on purpose: no destructor races a late parallel_for during static destruction.
  static Pool* const instance = new Pool(available_threads() - 1);
  return *instance;
}

}  // namespace

int available_threads() {
  static const int count = [] {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    return 1;  // a web page without cross-origin isolation has no threads (app/web/)
#endif
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return count;
}

namespace detail {

void parallel_for(int count, void (*call)(const void*, int), const void* task) {
  Job job;
  job.call = call;
  job.task = task;
  job.count = count;
  if (available_threads() > 1) {
    pool().run(job);
  } else {
    for (int index = 0; index < count; ++index) job.run(index);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace detail
}  // namespace smlab
