/**
 * docs/LOGS.md's field reference of the --json document against its declared type
 * (report/json-document.ts, read with the TypeScript compiler): a field one has and the other
 * lacks, a field documented twice, or a documented type the declaration does not give, fails
 * here, naming the path.
 */
import { readFileSync } from 'node:fs';
import { jsonTypePaths, SYSTEM_DOCUMENT } from './helpers/json-type-paths.js';

const logs = readFileSync(new URL('../docs/LOGS.md', import.meta.url), 'utf8');

/** `config`'s fields are the flags: docs/FLAGS.md is their reference (flags-doc.test.ts). */
const DOCUMENTED_ELSEWHERE = ['config'];

interface Row {
  path: string;
  type: string;
  line: number;
}

/** The table cells of a markdown row, `\|` inside a cell kept as `|`. */
const cells = (line: string): string[] =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));

/**
 * Every row of the section's tables, its path made whole: a table's heading names the objects
 * it lists the fields of (each in backticks; none: the document itself).
 */
function documentedRows(markdown: string, section = '## The --json document'): Row[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(section);
  if (start === -1) throw new Error(`docs/LOGS.md has no "${section}" section`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const rows: Row[] = [];
  let prefixes = [''];
  lines.slice(start, end === -1 ? undefined : end).forEach((line, i) => {
    if (line.startsWith('### ')) {
      const named = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      prefixes = named.length === 0 ? [''] : named;
      return;
    }
    const row = /^\| `([^`]+)` \|/.exec(line);
    if (row === null) return;
    const type = cells(line)[1]!;
    for (const prefix of prefixes) {
      const path = prefix === '' ? row[1]! : `${prefix}.${row[1]}`;
      rows.push({ path, type, line: start + i + 1 });
    }
  });
  return rows;
}

/** What the reference and the declaration disagree about: each list empty when they agree. */
function compare(declared: Map<string, string>, rows: Row[]) {
  const documented = new Map(rows.map((r) => [r.path, r]));
  return {
    declaredNotDocumented: [...declared.keys()].filter((path) => !documented.has(path)),
    documentedNotDeclared: rows.filter((r) => !declared.has(r.path)).map((r) => `${r.path} (line ${r.line})`),
    documentedTwice: rows.filter((r, i) => rows.findIndex((o) => o.path === r.path) !== i).map((r) => r.path),
    typeDiffers: rows
      .filter((r) => declared.has(r.path) && declared.get(r.path) !== r.type)
      .map((r) => {
        const type = declared.get(r.path)!;
        return `${r.path}: documented ${r.type}, declared ${type} (line ${r.line})`;
      }),
  };
}

const AGREE = {
  declaredNotDocumented: [],
  documentedNotDeclared: [],
  documentedTwice: [],
  typeDiffers: [],
};

const declared = jsonTypePaths(DOCUMENTED_ELSEWHERE);
const rows = documentedRows(logs);

test('the declared type reaches every level of the document', () => {
  expect(declared.get('runs[].consumers[].wrongKeys')).toBe('string[]');
  expect(declared.get('runs[].broker.subscribers.*.transport.retrans')).toBe('number');
  expect(declared.get('runs[].consumers[].digest')).toBe('object | null');
  expect(declared.get('runs[].events[].waitedMs')).toBe('number | absent');
  expect(declared.get('config')).toBe('object');
  expect(declared.size).toBeGreaterThan(200);
});

test('docs/LOGS.md lists every field of the --json document, once, with its declared type', () => {
  expect(compare(declared, rows)).toEqual(AGREE);
});

test('a field missing from either side, or given another type, is named', () => {
  const [first, second, ...rest] = rows;
  const changed = { ...second!, type: 'boolean' };
  const extra = { path: 'runs[].notAField', type: 'number', line: 0 };
  expect(compare(declared, [changed, ...rest, extra])).toEqual({
    declaredNotDocumented: [first!.path],
    documentedNotDeclared: ['runs[].notAField (line 0)'],
    documentedTwice: [],
    typeDiffers: [`${second!.path}: documented boolean, declared ${declared.get(second!.path)} (line ${second!.line})`],
  });
});

/** The document of a run against a real system (systems-run/system-document.ts), in its own section. */
const SYSTEM_SECTION = '## The --system --json document';
const systemDeclared = jsonTypePaths([], SYSTEM_DOCUMENT);

test("the real system's document is read to its leaves", () => {
  expect(systemDeclared.get('kind')).toBe('string');
  expect(systemDeclared.get('runs[].consumers[].explained[].evidence')).toBe('string');
  expect(systemDeclared.get('runs[].counters.before.*')).toBe('number');
  expect(systemDeclared.get('runs[].consumers[].signals[].detail')).toBe('string | null');
});

test('docs/LOGS.md lists every field of the --system --json document, once, with its declared type', () => {
  expect(compare(systemDeclared, documentedRows(logs, SYSTEM_SECTION))).toEqual(AGREE);
});
