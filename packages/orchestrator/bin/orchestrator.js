#!/usr/bin/env node
// Committed entry point: npm links bins at install time, before `prepare` has built dist/.
import '../dist/cli/main.js';
