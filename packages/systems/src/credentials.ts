/**
 * What a client of a server the harness did not start may need to be let in: the user's, read by
 * the orchestrator from a file or the environment (never from argv), carried inside the Endpoint
 * to every client of the run (the probes get it over IPC), and handed to each system's library as
 * that library takes it (servers/etcd.ts, servers/nats.ts, servers/redis.ts).
 */
export interface Credentials {
  /** etcd's auth user, a NATS user, a Redis ACL user. */
  readonly username?: string;
  readonly password?: string;
  /** A NATS token (etcd and Redis have no such thing). */
  readonly token?: string;
  /** PEM text, not paths: read once by whoever made the Credentials. */
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
}

/** The kinds of credential a system's client can use (RemoteRecipe.takes). */
export type CredentialKind = 'username' | 'password' | 'token' | 'tls';

/** The kinds `credentials` holds, in a fixed order. */
export function credentialKinds(credentials: Credentials | undefined): CredentialKind[] {
  if (credentials === undefined) return [];
  const kinds: CredentialKind[] = [];
  if (credentials.username !== undefined) kinds.push('username');
  if (credentials.password !== undefined) kinds.push('password');
  if (credentials.token !== undefined) kinds.push('token');
  if (credentials.tls !== undefined) kinds.push('tls');
  return kinds;
}

/**
 * `text` with every secret of `credentials` (password, token, TLS key) replaced by `[redacted]`:
 * for words that come from outside the harness (a library's error, a server's reply) on their way
 * to a report, `--json` or stderr. The harness never writes a credential itself (the username
 * included); this is for what a library might echo. The username is left: a common word such as
 * `default` would be struck from every sentence, and it opens nothing alone.
 */
export function redact(text: string, credentials: Credentials | undefined): string {
  if (credentials === undefined) return text;
  const secrets = [credentials.password, credentials.token, credentials.tls?.key]
    .filter((secret): secret is string => secret !== undefined && secret !== '')
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}
