/**
 * The parts of a real system's run its unit tests call directly (the package's
 * `./systems-internal` export, for tests alone, as `./internal`): apart from `./internal` because
 * they load the systems' clients, which every other test importing `./internal` would pay for.
 */
export { evidenceOf, judgeConsumer, latestWrites } from './judge.js';
export { workload } from './workload.js';
export { parseSystemRun } from './system-options.js';
export { judgedAuthority } from './restart-authority.js';
