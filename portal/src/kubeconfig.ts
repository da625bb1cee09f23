// Kubeconfig in the browser: an ECDSA P-256 key pair made by WebCrypto (the private key never
// leaves the page), a PKCS#10 CSR built and signed here, the certificate the API signs
// (POST /v1/certificates), and one self-contained kubeconfig with the cluster CA.

const enc = (tag: number, body: Uint8Array): Uint8Array<ArrayBuffer> => {
  const len = body.length;
  const head = len < 0x80 ? [tag, len] : len < 0x100 ? [tag, 0x81, len] : [tag, 0x82, len >> 8, len & 0xff];
  const out = new Uint8Array(head.length + len);
  out.set(head);
  out.set(body, head.length);
  return out;
};
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) {
    out.set(p, i);
    i += p.length;
  }
  return out;
};
const seq = (...parts: Uint8Array[]) => enc(0x30, cat(...parts));
const set = (...parts: Uint8Array[]) => enc(0x31, cat(...parts));
const utf8 = (s: string) => enc(0x0c, new TextEncoder().encode(s));

function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk: number[] = [];
    let v = n;
    do {
      chunk.unshift(v & 0x7f);
      v >>= 7;
    } while (v > 0);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i]! |= 0x80;
    bytes.push(...chunk);
  }
  return enc(0x06, new Uint8Array(bytes));
}

function integer(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const v = bytes.slice(i);
  return enc(0x02, v[0]! & 0x80 ? cat(new Uint8Array([0]), v) : v);
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const pem = (label: string, der: Uint8Array) => `-----BEGIN ${label}-----\n${b64(der).replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

export interface ClientKey {
  csr: string;
  keyPem: string;
}

/** A fresh key pair and a CSR for CN=<user>, O=<group>. */
export async function makeCsr(user: string, group = 'system:masters'): Promise<ClientKey> {
  const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', keys.publicKey));
  const subject = seq(set(seq(oid('2.5.4.10'), utf8(group))), set(seq(oid('2.5.4.3'), utf8(user))));
  const info = seq(integer(new Uint8Array([0])), subject, spki, enc(0xa0, new Uint8Array()));
  const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, info as Uint8Array<ArrayBuffer>));
  const signature = seq(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  const csr = seq(info, seq(oid('1.2.840.10045.4.3.2')), enc(0x03, cat(new Uint8Array([0]), signature)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { csr: pem('CERTIFICATE REQUEST', csr), keyPem: pem('PRIVATE KEY', pkcs8) };
}

/** notAfter of a PEM certificate (tbsCertificate's validity), by walking its DER. */
export function certificateExpiry(certPem: string): Date | undefined {
  try {
    const der = Uint8Array.from(atob(certPem.replace(/-----[^-]+-----|\s/g, '')), (c) => c.charCodeAt(0));
    const read = (at: number): { tag: number; start: number; end: number } => {
      const tag = der[at]!;
      let len = der[at + 1]!;
      let start = at + 2;
      if (len & 0x80) {
        const n = len & 0x7f;
        len = 0;
        for (let i = 0; i < n; i++) len = (len << 8) | der[start + i]!;
        start += n;
      }
      return { tag, start, end: start + len };
    };
    const cert = read(0);
    const tbs = read(cert.start);
    let at = tbs.start;
    let el = read(at);
    if (el.tag === 0xa0) el = read((at = el.end)); // version
    for (let i = 0; i < 3; i++) el = read((at = el.end)); // serial → signature → issuer → validity
    const validity = el;
    const notBefore = read(validity.start);
    const notAfter = read(notBefore.end);
    const text = new TextDecoder().decode(der.slice(notAfter.start, notAfter.end));
    const m = notAfter.tag === 0x17 ? /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(text) : /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)Z$/.exec(text);
    if (!m) return undefined;
    const year = notAfter.tag === 0x17 ? 2000 + Number(m[1]) - (Number(m[1]) >= 50 ? 100 : 0) : Number(m[1]);
    return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
  } catch {
    return undefined;
  }
}

const toB64 = (text: string) => btoa(unescape(encodeURIComponent(text)));

export function kubeconfig(opts: { cluster: string; server: string; caPem: string; certPem: string; keyPem: string; user: string }): string {
  const ctxName = `${opts.user}@${opts.cluster}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${JSON.stringify(opts.cluster)}`,
    '  cluster:',
    `    server: ${JSON.stringify(opts.server)}`,
    `    certificate-authority-data: ${toB64(opts.caPem.trim() + '\n')}`,
    'users:',
    `- name: ${JSON.stringify(ctxName)}`,
    '  user:',
    `    client-certificate-data: ${toB64(opts.certPem.trim() + '\n')}`,
    `    client-key-data: ${toB64(opts.keyPem)}`,
    'contexts:',
    `- name: ${JSON.stringify(ctxName)}`,
    '  context:',
    `    cluster: ${JSON.stringify(opts.cluster)}`,
    `    user: ${JSON.stringify(ctxName)}`,
    `current-context: ${JSON.stringify(ctxName)}`,
    '',
  ].join('\n');
}

export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
