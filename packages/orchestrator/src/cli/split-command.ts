/**
 * Splits a command line into words the way a POSIX shell would, without running
 * a shell: whitespace separates words; '...' is literal; "..." is literal except
 * that a backslash escapes " \ $ ` and newline; outside quotes a backslash
 * escapes the next character. No shell runs, so whatever a shell would expand
 * or redirect (| & ; < > ( ) $ ` and a word starting with #) is refused, not
 * passed on as text: a command that needs them can say `sh -c '...'`. Globs
 * and ~ are not expanded. Written here (about 60 lines) rather than taken from
 * a library: shell-quote, the well-kept one, substitutes $VARS and hands back
 * operators as objects that would need handling anyway; what is needed is a
 * plain split whose errors say where the bad quote is.
 */

const SHELL_SYNTAX = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`']);
const SPACE = new Set([' ', '\t', '\n']);
const ESCAPABLE_IN_DOUBLE = new Set(['"', '\\', '$', '`', '\n']);

/** Thrown with a message that completes "CMD: ..." (the caller names the flag). */
export class CommandSyntaxError extends Error {}

export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null; // null: between words ('' is an empty quoted word)
  let at = 0;
  const take = (): string => line[at++] ?? '';
  while (at < line.length) {
    const start = at;
    const c = take();
    if (SPACE.has(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", at);
      if (end < 0) throw new CommandSyntaxError(`the ' at character ${start + 1} is never closed`);
      word = (word ?? '') + line.slice(at, end);
      at = end + 1;
    } else if (c === '"') {
      word = (word ?? '') + readDoubleQuoted(line, at, start, (next) => (at = next));
    } else if (c === '\\') {
      if (at >= line.length) throw new CommandSyntaxError('it ends with a lone backslash');
      const escaped = take();
      if (escaped !== '\n') word = (word ?? '') + escaped; // backslash-newline joins lines, as in sh
    } else if (SHELL_SYNTAX.has(c) || (c === '#' && word === null)) {
      throw new CommandSyntaxError(
        `${c} at character ${start + 1} is shell syntax, and no shell runs the command; quote it, or run sh -c '...'`,
      );
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** The inside of "...", from just after the opening quote; reports where it ended through `moveTo`. */
function readDoubleQuoted(line: string, from: number, opened: number, moveTo: (next: number) => void): string {
  let out = '';
  for (let at = from; at < line.length; at++) {
    const c = line[at]!;
    if (c === '"') {
      moveTo(at + 1);
      return out;
    }
    if (c === '\\' && ESCAPABLE_IN_DOUBLE.has(line[at + 1] ?? '')) {
      at += 1;
      if (line[at] !== '\n') out += line[at];
    } else if (c === '$' || c === '`') {
      throw new CommandSyntaxError(
        `${c} at character ${at + 1} would be expanded by a shell, and no shell runs the command; escape it as \\${c}`,
      );
    } else {
      out += c;
    }
  }
  throw new CommandSyntaxError(`the " at character ${opened + 1} is never closed`);
}
