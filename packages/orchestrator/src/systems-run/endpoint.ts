import { credentialKinds, type Credentials, type Endpoint, type TargetSystem } from '@state-divergence/systems';
import { UsageError } from '../model/errors.js';
import { BROKER } from '../model/faults.js';
import { KIND_NAMES, readCredentials } from './credentials-source.js';
import type { RawOptions } from '../model/options.js';

/** The flags this file reads, as yargs hands them over (system-options.ts's RawSystemFlags has them). */
export interface EndpointFlags extends Pick<RawOptions, 'crash'> {
  /** A server someone runs, instead of one started here. */
  endpoint?: string | undefined;
  /** The KEY=VALUE file its credentials are in (credentials-source.ts). */
  credentials?: string | undefined;
}

const where = (system: TargetSystem) => {
  const { schemes, defaultPort } = system.remote;
  return `${schemes.map((scheme) => `${scheme}//`).join(' or ')}HOST[:PORT] (port ${defaultPort} if none)`;
};

/**
 * Flags that act on the server itself, refused against one the run did not start (`--endpoint`):
 * killing it (`--crash broker@…`) or compacting its whole store (`--compact-at`: etcd's history
 * is the store's, not a prefix's) would reach past the run's prefix into someone's deployment.
 * A consumer's faults stay: the consumers are ours. `--system all` is one URL for five servers.
 */
export function refuseServerFaults(raw: EndpointFlags, everySystem: boolean): void {
  if (raw.endpoint === undefined) {
    if (raw.credentials !== undefined)
      throw new UsageError('--credentials is for --endpoint URL (a server someone runs)');
    return;
  }
  if (everySystem) throw new UsageError('--endpoint is one server: for one --system NAME, not all');
  const crashes = (raw.crash ?? []).flatMap((text) => String(text).split(','));
  if (crashes.some((text) => text.trim() === BROKER || text.trim().startsWith(`${BROKER}@`)))
    throw new UsageError(
      `--crash ${BROKER}@… kills the server: not one someone else runs (--endpoint); a consumer's faults stay ours`,
    );
  // The knobs' branch adds --compact-at; yargs refuses it as unknown until then.
  if ((raw as { compactAt?: unknown }).compactAt !== undefined)
    throw new UsageError("--compact-at compacts the whole store, not the run's prefix: not with --endpoint");
}

/** The URL as a report may print it: scheme, host, port and path; never a user or password. */
function publicUrl(url: URL, port: number, path: string): string {
  return `${url.protocol}//${url.hostname}:${port}${path}`;
}

/**
 * `--endpoint URL` for `system`, checked against its RemoteRecipe before anything starts: a
 * scheme its clients take, no password in the URL (argv is visible to every user of the machine:
 * credentials come from `--credentials FILE` or the environment), a user in the URL taken as
 * SD_USERNAME, credentials the system's clients can use, TLS ones only with a TLS scheme. The
 * Endpoint's URL is the public one: what the clients are given and what a report prints.
 */
export function parseEndpoint(system: TargetSystem, text: string, given: Credentials): Endpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text is not echoed: a mistyped URL may still hold a password.
    throw new UsageError(`--endpoint for ${system.name} must be a URL: ${where(system)}`);
  }
  if (url.password !== '')
    throw new UsageError('--endpoint holds a password: put it in --credentials FILE (SD_PASSWORD=…) or SD_PASSWORD');
  const { remote } = system;
  // The scheme given is not echoed either: `secret:…` parses as a URL whose scheme is the secret.
  if (!remote.schemes.includes(url.protocol))
    throw new UsageError(`--endpoint for ${system.name} must be ${where(system)}`);
  if (url.hostname === '') throw new UsageError(`--endpoint for ${system.name} names no host: ${where(system)}`);
  if (url.search !== '' || url.hash !== '') throw new UsageError('--endpoint takes no ?query or #fragment');
  const path = url.pathname === '/' ? '' : url.pathname;
  if (path !== '' && remote.path?.test(path) !== true)
    throw new UsageError(`--endpoint for ${system.name} takes no path ${path}`);
  const fromUrl = url.username === '' ? undefined : decodeURIComponent(url.username);
  if (fromUrl !== undefined && given.username !== undefined && fromUrl !== given.username)
    throw new UsageError("--endpoint's user and SD_USERNAME differ: give one");
  const credentials: Credentials = { ...given, ...(fromUrl !== undefined && { username: fromUrl }) };
  const kinds = credentialKinds(credentials);
  const refused = kinds.filter((kind) => !remote.takes.includes(kind));
  if (refused.length > 0)
    throw new UsageError(
      `${system.name} takes no ${refused.map((kind) => KIND_NAMES[kind]).join(', ')} ` +
        `(it takes ${remote.takes.map((kind) => KIND_NAMES[kind]).join(', ')})`,
    );
  if (credentials.username !== undefined && credentials.password === undefined)
    throw new UsageError('a user needs its password: SD_PASSWORD');
  if (credentials.tls !== undefined && !remote.tlsSchemes.includes(url.protocol))
    throw new UsageError(
      `TLS credentials need a TLS --endpoint: ${remote.tlsSchemes.map((scheme) => `${scheme}//`).join(' or ')}`,
    );
  const port = url.port === '' ? remote.defaultPort : Number(url.port);
  const clientUrl = publicUrl(url, port, path);
  const monitorUrl = remote.monitorUrl?.(new URL(clientUrl));
  return {
    url: clientUrl,
    port,
    ...(monitorUrl !== undefined && { monitorUrl }),
    ...(kinds.length > 0 && { credentials }),
  };
}

/** The run's endpoint from `--endpoint` and `--credentials` (or the environment's SD_*), or null to start a server. */
export function endpointOf(raw: EndpointFlags, system: TargetSystem, env: NodeJS.ProcessEnv): Endpoint | null {
  if (raw.endpoint === undefined) return null;
  return parseEndpoint(system, raw.endpoint, readCredentials(raw.credentials, env));
}
