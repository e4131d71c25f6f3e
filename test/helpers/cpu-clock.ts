/**
 * A clock of this process's CPU time (user + system, in ms), for tests that bound how much work
 * something takes. Other test files run beside this one on the same cores: the wall clock counts
 * their turns too, the CPU clock does not (vitest's forks pool gives each file a process).
 */
export function cpuClock(): () => number {
  const started = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
}
