import { roleEntry, runChildOf } from '@state-divergence/runtime';
import { startConsumer } from './consumer-role.js';
import { startPool } from './pool.js';

// One bundle, two roles: its init says whether this process is one consumer or a pool of them (pool.ts).
await runChildOf(roleEntry('consumer', startConsumer), roleEntry('pool', startPool));
