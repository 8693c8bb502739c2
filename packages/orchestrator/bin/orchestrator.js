#!/usr/bin/env node
// Committed entry point: npm links bins at install time, before `prepare` has built dist/.
// It runs the CLI's bundle (scripts/bundle.mjs): one file to load instead of hundreds of modules.
import '../dist/bundle/main.js';
