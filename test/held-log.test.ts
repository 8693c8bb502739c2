/**
 * While the live view owns the terminal, the run's log lines wait in a file of their own and reach
 * stderr once it is gone: every line, once, in order; the file is removed after.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { holdLog } from '@state-divergence/orchestrator/internal';

test('lines written while held reach stderr at each flush, each once, and release removes the file', () => {
  const out: string[] = [];
  const held = holdLog((text) => out.push(text));
  held.flush(); // nothing logged yet: nothing to copy, no error
  expect(out).toEqual([]);
  appendFileSync(held.path, '{"level":40,"msg":"stale"}\n');
  appendFileSync(held.path, '{"level":40,"msg":"subscription lost"}\n');
  held.flush();
  expect(out.join('')).toBe('{"level":40,"msg":"stale"}\n{"level":40,"msg":"subscription lost"}\n');
  appendFileSync(held.path, '{"level":50,"msg":"teardown step failed"}\n');
  held.release();
  expect(out.join('').split('\n').filter(Boolean)).toHaveLength(3);
  expect(out.at(-1)).toBe('{"level":50,"msg":"teardown step failed"}\n');
  expect(existsSync(dirname(held.path))).toBe(false);
});

test('more than one read buffer of lines is copied whole', () => {
  const out: string[] = [];
  const held = holdLog((text) => out.push(text));
  const line = `${JSON.stringify({ level: 40, msg: 'x'.repeat(200) })}\n`;
  for (let i = 0; i < 1000; i++) appendFileSync(held.path, line);
  held.release();
  expect(out.join('')).toBe(line.repeat(1000));
});
