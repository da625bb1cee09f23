// openssl as an independent judge of what src/pki produces: CSRs made by it, certificates checked by it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
}

/** A CSR made by `openssl req`; `key` is `ec` (P-256, the default: fast) or `rsa:2048`; `addext` are -addext values. */
export function opensslCsr(opts: { subject?: string; key?: 'rsa:2048' | 'ec'; addext?: string[] } = {}): { csr: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pki-test-'));
  try {
    const keyArgs = opts.key === 'rsa:2048' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    openssl([
      'req', '-new', ...keyArgs, '-nodes', '-sha256', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'csr.pem'),
      '-subj', opts.subject ?? '/O=system:masters/CN=admin', ...(opts.addext ?? []).flatMap((e) => ['-addext', e]),
    ]);
    return { csr: readFileSync(join(dir, 'csr.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl verify -CAfile` of a certificate against a CA; returns openssl's output (throws when it fails). */
export function opensslVerify(caPem: string, certPem: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pki-test-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), caPem);
    writeFileSync(join(dir, 'cert.pem'), certPem);
    return openssl(['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'cert.pem')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const opensslText = (certPem: string): string => openssl(['x509', '-noout', '-text'], certPem);
