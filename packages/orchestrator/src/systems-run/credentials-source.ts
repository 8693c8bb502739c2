import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CredentialKind, Credentials } from '@state-divergence/systems';
import { UsageError } from '../model/errors.js';

/**
 * The names credentials go by, in a `--credentials FILE` and in the environment alike. The TLS
 * ones are paths to PEM files (relative to the file's directory, or to the working directory
 * for the environment's), read here once: what the clients get is the PEM text.
 */
export const CREDENTIAL_NAMES = [
  'SD_USERNAME',
  'SD_PASSWORD',
  'SD_TOKEN',
  'SD_TLS_CA',
  'SD_TLS_CERT',
  'SD_TLS_KEY',
] as const;
type CredentialName = (typeof CREDENTIAL_NAMES)[number];

/** Each kind of credential as the user names it, for a refusal that must not show a value. */
export const KIND_NAMES: Record<CredentialKind, string> = {
  username: 'SD_USERNAME',
  password: 'SD_PASSWORD',
  token: 'SD_TOKEN',
  tls: 'SD_TLS_CA/SD_TLS_CERT/SD_TLS_KEY',
};

const isName = (name: string): name is CredentialName => (CREDENTIAL_NAMES as readonly string[]).includes(name);

/**
 * A KEY=VALUE file, as a shell's `.env`: one NAME=VALUE a line, `#` comments and blank lines
 * skipped, a value optionally in matching quotes. A line that is not NAME=VALUE, or a name not in
 * CREDENTIAL_NAMES, is refused by its line number and name alone: the line may hold a secret.
 */
function fromFile(file: string): Map<CredentialName, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--credentials ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const values = new Map<CredentialName, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match === null) throw new UsageError(`--credentials ${file}: line ${index + 1} is not NAME=VALUE`);
    const [, name = '', given = ''] = match;
    if (!isName(name))
      throw new UsageError(
        `--credentials ${file}: line ${index + 1} names ${name}; the names are ${CREDENTIAL_NAMES.join(', ')}`,
      );
    const quoted = /^(["'])(.*)\1$/.exec(given);
    values.set(name, quoted?.[2] ?? given);
  });
  return values;
}

function fromEnvironment(env: NodeJS.ProcessEnv): Map<CredentialName, string> {
  const values = new Map<CredentialName, string>();
  for (const name of CREDENTIAL_NAMES) {
    const value = env[name];
    if (value !== undefined) values.set(name, value);
  }
  return values;
}

/**
 * The run's credentials: from `file` when `--credentials FILE` is given (the environment's are
 * then left out: one source, so a run's is never a mix nobody wrote down), else from the
 * environment. An empty value is no value.
 */
export function readCredentials(file: string | undefined, env: NodeJS.ProcessEnv): Credentials {
  const values = file === undefined ? fromEnvironment(env) : fromFile(file);
  const where = file === undefined ? 'the environment' : `--credentials ${file}`;
  const base = file === undefined ? process.cwd() : dirname(resolve(file));
  const value = (name: CredentialName) => {
    const given = values.get(name);
    return given === undefined || given === '' ? undefined : given;
  };
  const pem = (name: CredentialName) => {
    const path = value(name);
    if (path === undefined) return undefined;
    try {
      return readFileSync(resolve(base, path), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`${name} in ${where}: cannot read ${path} (${code})`);
    }
  };
  const [ca, cert, key] = [pem('SD_TLS_CA'), pem('SD_TLS_CERT'), pem('SD_TLS_KEY')];
  const tls = {
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
  };
  const [username, password, token] = [value('SD_USERNAME'), value('SD_PASSWORD'), value('SD_TOKEN')];
  return {
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(token !== undefined && { token }),
    ...(Object.keys(tls).length > 0 && { tls }),
  };
}
