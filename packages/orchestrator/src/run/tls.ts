import { TLS_SERVER_NAME } from '@state-divergence/protocol';

export interface RunCertificate {
  certPem: string;
  keyPem: string;
}

/**
 * A fresh self-signed certificate for one run, held in memory only (no files
 * left behind). ECDSA P-256 with SHA-256 and a DNS SAN: selfsigned's defaults
 * (SHA-1, no SAN) do not verify under BoringSSL.
 */
export async function generateRunCertificate(): Promise<RunCertificate> {
  // Loaded on first use (~50 ms: @peculiar/x509, asn1js, tsyringe), so the orchestrator's
  // start-up does not pay for it; the first cluster's children are booting meanwhile.
  // selfsigned is CommonJS: its module.exports is the namespace's default, in Node and in the bundle alike.
  const { generate } = (await import('selfsigned')).default;
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 24 * 3600_000);
  const pems = await generate([{ name: 'commonName', value: TLS_SERVER_NAME }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: TLS_SERVER_NAME }] }],
  });
  return { certPem: pems.cert, keyPem: pems.private };
}
