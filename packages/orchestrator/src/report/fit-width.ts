/**
 * The text report fitted to a terminal's width. The report is written for ~120 columns; a
 * terminal narrower than a line wraps it wherever the edge falls, mid-word ("conf / ig/key-0095").
 * When stdout is a terminal, each line wider than it is broken between words instead, its
 * continuation indented two past the line's own indent, so a consumer's details stay under it.
 * A file or a pipe gets the lines as they are (`columns` undefined): tools read those.
 */
export function fitWidth(text: string, columns: number | undefined): string {
  if (columns === undefined || columns <= 0) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, columns))
    .join('\n');
}

/** Narrower than this, a continuation line keeps no indent: the words need the room. */
const MIN_TEXT = 20;

function wrapLine(line: string, columns: number): string[] {
  if (line.length <= columns) return [line];
  const indent = /^ */.exec(line)![0].length;
  const hanging = ' '.repeat(columns - (indent + 2) >= MIN_TEXT ? indent + 2 : 0);
  const out: string[] = [];
  let current = line.slice(0, indent);
  let blank = true; // nothing but indent on the current line yet
  // Words with the spaces before each kept as they were: a row of columns that still fits keeps its alignment.
  for (const match of line.slice(indent).matchAll(/( *)([^ ]+)/g)) {
    const [, gap = '', word = ''] = match;
    const joined = blank ? current + word : current + gap + word;
    if (joined.length <= columns) {
      current = joined;
      blank = false;
      continue;
    }
    if (!blank) {
      out.push(current);
      current = hanging;
    }
    // A word longer than a whole line (a path, a URL) is cut where the edge falls: nothing else fits it.
    let rest = word;
    while (current.length + rest.length > columns) {
      const room = Math.max(1, columns - current.length);
      out.push(current + rest.slice(0, room));
      rest = rest.slice(room);
      current = hanging;
    }
    current += rest;
    blank = false;
  }
  if (!blank) out.push(current);
  return out;
}

/** The width to fit stdout's text to: the terminal's, or none for a file or a pipe. */
export const stdoutColumns = (): number | undefined =>
  process.stdout.isTTY ? process.stdout.columns || undefined : undefined;
