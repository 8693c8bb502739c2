/**
 * run/tls.ts: the per-run certificate names both what our clients verify (the DNS
 * name localhost) and the address the broker listens on (for a stack that verifies
 * the address it dialled), and is valid now.
 */
import { X509Certificate } from 'node:crypto';
import { BROKER_HOST, TLS_SERVER_NAME } from '@state-divergence/protocol';
import { generateRunCertificate } from '@state-divergence/orchestrator';

let certificate: X509Certificate;
beforeAll(async () => {
  certificate = new X509Certificate((await generateRunCertificate()).certPem);
});

test('it carries an IP SAN for the address the broker listens on', () => {
  expect(BROKER_HOST).toBe('127.0.0.1');
  expect(certificate.checkIP(BROKER_HOST)).toBeTruthy();
  expect(certificate.checkIP('127.0.0.2')).toBeUndefined();
});

test('it keeps the DNS SAN localhost, the name our clients verify, and names nothing else', () => {
  expect(certificate.checkHost(TLS_SERVER_NAME)).toBeTruthy();
  expect(certificate.subjectAltName).toBe(`DNS:${TLS_SERVER_NAME}, IP Address:${BROKER_HOST}`);
});

test('it is valid now, for a day at most, and signed with ECDSA P-256', () => {
  const now = Date.now();
  expect(Date.parse(certificate.validFrom)).toBeLessThanOrEqual(now);
  expect(Date.parse(certificate.validTo)).toBeGreaterThan(now);
  expect(Date.parse(certificate.validTo) - now).toBeLessThanOrEqual(24 * 3600_000);
  expect(certificate.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
});
