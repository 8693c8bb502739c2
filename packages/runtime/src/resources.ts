import type { ProcessResources } from '@state-divergence/protocol';

/** What this process has cost so far: CPU time and peak resident set (process.resourceUsage()). */
export function processResources(): ProcessResources {
  const usage = process.resourceUsage();
  return { cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), maxRssKb: usage.maxRSS };
}

/** CPU this process has used since it started, µs (user + system, every thread): the counters' cpuMicros. */
export function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}
