#!/usr/bin/env node
// Writes docs/FLAGS.md from the CLI's own yargs declarations (`npm run flags`, after a build).
// test/flags-doc.test.ts fails when the file is stale.
import { writeFileSync } from 'node:fs';
import { renderFlagReference } from '@state-divergence/orchestrator';

const path = new URL('../docs/FLAGS.md', import.meta.url);
writeFileSync(path, renderFlagReference());
process.stdout.write(`wrote ${path.pathname}\n`);
