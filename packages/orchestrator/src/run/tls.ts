import { BROKER_HOST, TLS_SERVER_NAME } from '@state-divergence/protocol';

export interface RunCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * A fresh self-signed certificate for one run, held in memory only (no files
 * left behind). ECDSA P-256 with SHA-256 and SANs: selfsigned's defaults
 * (SHA-1, no SAN) do not verify under BoringSSL. The DNS SAN is the name our
 * clients verify; the IP SAN is the address the broker listens on, for a stack
 * that verifies the address it dialled (BoringSSL, in quiche, ignores it).
 */
export async function generateRunCertificate(): Promise<RunCertificate> {
  // Loaded on first use (~50 ms: @peculiar/x509, asn1js, tsyringe), so the orchestrator's
  // start-up does not pay for it; the first cluster's children are booting meanwhile.
  // selfsigned is CommonJS: its module.exports is the namespace's default, in Node and in the bundle alike.
  const { generate } = (await import('selfsigned')).default;
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 24 * 3600_000);
  // selfsigned numbers SAN types as node-forge does: 2 is a DNS name, 7 an IP address.
  const altNames = [
    { type: 2 as const, value: TLS_SERVER_NAME },
    { type: 7 as const, ip: BROKER_HOST },
  ];
  const pems = await generate([{ name: 'commonName', value: TLS_SERVER_NAME }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [{ name: 'subjectAltName', altNames }],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}
