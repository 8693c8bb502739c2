import { redact, type Credentials, type Endpoint } from '@state-divergence/systems';
import type { SystemRun } from './system-document.js';

/**
 * A run's result with every secret of `credentials` struck from the words that came from outside
 * the harness (a library's or server's, in a signal's detail or a finding's why), before the
 * report or --json prints them. The harness writes no credential itself; this is for an echo.
 */
export function redactRun(run: SystemRun, credentials: Credentials | undefined): SystemRun {
  if (credentials === undefined) return run;
  const strike = (words: string) => redact(words, credentials);
  return {
    ...run,
    // A failed write's words are the client's, a finding's why may quote the server.
    server: {
      ...run.server,
      failure: run.server.failure === null ? null : strike(run.server.failure),
      findings: run.server.findings.map(({ key, why }) => ({ key, why: strike(why) })),
    },
    compactions: run.compactions.map((c) => ({ ...c, error: c.error === null ? null : strike(c.error) })),
    consumers: run.consumers.map((consumer) => ({
      ...consumer,
      unexplained: consumer.unexplained.map(({ key, why }) => ({ key, why: redact(why, credentials) })),
      signals: consumer.signals.map((signal) => ({
        ...signal,
        detail: signal.detail === null ? null : redact(signal.detail, credentials),
      })),
    })),
  };
}

/**
 * The error that ended a run against a server someone runs, as one line naming it, the secrets
 * struck (a library's words, WRONGPASS and the like, may echo what it was given). A run that
 * started its own server keeps its error as it is.
 */
export function redactError(error: unknown, system: string, endpoint: Endpoint | null): unknown {
  if (endpoint === null) return error;
  const first = ((error as Error)?.message ?? String(error)).split('\n')[0] ?? '';
  const named = first.includes(endpoint.url) ? first : `${system} at ${endpoint.url}: ${first}`;
  return new Error(redact(named, endpoint.credentials), { cause: error });
}
