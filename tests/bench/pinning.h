#pragma once
// Benchmarks run a server pinned to core 0 and the load generator on the other cores, so
// that the two do not take turns on one core.
#include <sched.h>
#include <unistd.h>

namespace gavel {

// Keeps this process (and the threads it starts later) off core 0. Call first in main,
// before any library starts threads. No effect on a single-core machine.
inline void KeepOffCoreZero() {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 2) return;
  cpu_set_t others;
  CPU_ZERO(&others);
  for (long cpu = 1; cpu < cores && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &others);
  sched_setaffinity(0, sizeof others, &others);
}

}  // namespace gavel
