/**
 * The docs' shape, checked rather than hoped for (issue 27): every relative link, anchor included,
 * lands on a file of this repository and a heading it has; the README stays a two-minute read;
 * the pages a newcomer reads first keep their lines to a width a screen shows.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = [
  'README.md',
  'examples/consumer-js/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const NARROW = ['README.md', 'docs/ARCHITECTURE.md', 'docs/FINDINGS.md', 'docs/USAGE.md'];
const WIDTH = 120;

const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** The page without its fenced code blocks and inline code: links there are text, not links. */
const FENCED = /^```[^\n]*\n[\s\S]*?^```$/gm;
const prose = (text: string): string => text.replace(FENCED, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, no punctuation, spaces hyphens; repeats get -1, -2. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading = ''] of text.replace(FENCED, '').matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const links = (page: string): string[] =>
  [...prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));

describe('each relative link in the docs lands inside the repository, on a heading it has', () => {
  test.each(PAGES)('%s', (page) => {
    const broken = links(page).filter((target) => {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
      if (relative(ROOT, file).startsWith('..') || !existsSync(file)) return true;
      if (anchor === undefined) return false;
      return !file.endsWith('.md') || !anchors(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  test("the anchor rule is GitHub's: punctuation and backticks dropped, spaces hyphens", () => {
    const page = '# The `--json` document\n## Protocol 2: what a consumer must handle\n# A\n# A\n';
    expect([...anchors(page)]).toEqual(['the---json-document', 'protocol-2-what-a-consumer-must-handle', 'a', 'a-1']);
  });
});

describe('the README is a two-minute read', () => {
  const readme = read('README.md');

  test('at most 150 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });

  test('it gives the two commands, exactly: the demo and the suite (.ci/run runs the same)', () => {
    expect(readme).toContain('npm install && npm run demo');
    expect(readme).toContain('npm install && npm test');
    expect(read('.ci/run')).toMatch(/^npm test /m);
  });
});

test.each(NARROW)(`%s keeps every line to ${WIDTH} characters`, (page) => {
  const wide = read(page)
    .split('\n')
    .map((line, i) => ({ line: i + 1, length: line.length }))
    .filter((l) => l.length > WIDTH);
  expect(wide).toEqual([]);
});
