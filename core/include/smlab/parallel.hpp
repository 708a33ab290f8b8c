// One persistent pool of worker threads for the core's kernels and Monte Carlo (parallel_for), so a
// split costs a wake-up (µs) instead of a thread start (~75 µs here), and every hardware thread helps.
#pragma once

namespace smlab {

// The threads this process may run on: its CPU affinity mask (so `taskset -c 0` or a container's
// cpuset gives 1), else std::thread::hardware_concurrency(); at least 1. Read once.
int available_threads();

namespace detail {
void parallel_for(int count, void (*call)(const void* task, int index), const void* task);
}  // namespace detail

// Runs task(0) … task(count − 1), each exactly once, on the calling thread and the pool's
// available_threads() − 1 workers (at normal priority), and returns when all have finished. Which thread
// runs which index is unspecified: callers make each index's work depend on the index only, so results do not depend on
// the number of threads. Safe from several threads at once and from inside a task: the caller works through its own
// indices too, so nothing waits on a busy pool. An exception from a task is rethrown here (the first one; the other
// indices still run).
template <class Task>
void parallel_for(int count, const Task& task) {
  if (count <= 0) return;
  if (count == 1) {
    task(0);
    return;
  }
  detail::parallel_for(
      count, [](const void* erased, int index) { (*static_cast<const Task*>(erased))(index); }, &task);
}

}  // namespace smlab
