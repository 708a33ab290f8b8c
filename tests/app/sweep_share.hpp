// How the exhaustive lesson sweeps divide their steps in the sanitizer pass of `make test`.
// The Release pass renders every step in every look (size, language, mode). The sanitizer pass
// looks for memory and undefined-behaviour faults, which depend on the code path, not on the look:
// there each step is rendered in one look, the looks taking the steps in turn, so every step and
// every look still runs under the sanitizers at a fraction of the time (docs/ARCHITECTURE.md,
// "Test tiers").
#pragma once

#include <cstddef>
#include <cstdio>

namespace smlab::app::sweep_share {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// Whether the sweep for look `look` (0 … looks − 1) renders the step numbered `ordinal`, counted
// over every step of every lesson: always in the Release pass; in the sanitizer pass when the
// ordinal falls to this look.
inline bool sweep_covers(std::size_t ordinal, std::size_t look, std::size_t looks) {
  return !kSanitizedBuild || ordinal % looks == look;
}

// One line in the test's output saying which share of the steps it rendered, so a log reader
// knows the sanitizer pass took one look per step.
inline void say_sweep_share(std::size_t look, std::size_t looks) {
  if (kSanitizedBuild)
    std::printf("[ sanitized ] steps k with k mod %zu = %zu of each sweep (every step once across the %zu looks)\n",
                looks, look, looks);
}

}  // namespace smlab::app::sweep_share
