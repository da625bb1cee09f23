// Smoke test of the real-Keystone harness: both token providers, password login, validation by the service
// user, revocation, and (JWS) offline signature verification with jose.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { readFile, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importSPKI, jwtVerify } from 'jose';
import { issueToken, keystoneCall, startRealKeystone, type RealKeystone } from '../../support/real-keystone.js';

for (const provider of ['fernet', 'jws'] as const) {
  describe(`real Keystone harness (${provider})`, () => {
    let ks: RealKeystone;

    before(async () => {
      ks = await startRealKeystone({ provider });
    });

    after(async () => {
      await ks?.stop();
    });

    it('serves Keystone v3 on loopback with the fixture projects and users', async () => {
      assert.equal(ks.provider, provider);
      assert.match(ks.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(ks.authUrl, `${ks.url}/v3`);
      const res = await keystoneCall(ks.authUrl, 'GET', '');
      assert.equal(res.status, 200);
      assert.equal(res.body.version.id.startsWith('v3'), true);
      for (const p of ['admin', 'service', 'demo', 'other'] as const) assert.match(ks.projectIds[p], /^[0-9a-f]{32}$/);
      assert.deepEqual(Object.keys(ks.users).sort(), ['admin', 'demo', 'demo-reader', 'magnum', 'other']);
      if (provider === 'jws') {
        assert.ok(ks.jwsPublicKeyPath && existsSync(ks.jwsPublicKeyPath));
      } else {
        assert.equal(ks.jwsPublicKeyPath, undefined);
      }
    });

    it('issues a demo token that magnum validates, with the member role, until it is revoked', async () => {
      const demo = await issueToken(ks, 'demo');
      assert.equal(demo.body.token.project.id, ks.projectIds.demo);
      if (provider === 'jws') assert.match(demo.token, /^eyJ/);
      else assert.match(demo.token, /^gAAAAA/);

      const magnum = await issueToken(ks, 'magnum');
      const magnumRoles = (magnum.body.token.roles as { name: string }[]).map((r) => r.name);
      assert.ok(magnumRoles.includes('admin') && magnumRoles.includes('service'), magnumRoles.join(','));

      const valid = await keystoneCall(ks.authUrl, 'GET', '/auth/tokens?nocatalog', {
        token: magnum.token,
        subject: demo.token,
      });
      assert.equal(valid.status, 200, JSON.stringify(valid.body));
      assert.equal(valid.headers.get('x-subject-token'), demo.token);
      assert.equal(valid.body.token.user.name, 'demo');
      assert.equal(valid.body.token.project.id, ks.projectIds.demo);
      const roles = (valid.body.token.roles as { name: string }[]).map((r) => r.name);
      assert.ok(roles.includes('member'), roles.join(','));
      assert.ok(roles.includes('reader'), 'implied role reader');
      assert.ok(!roles.includes('admin'));

      const revoked = await keystoneCall(ks.authUrl, 'DELETE', '/auth/tokens', {
        token: magnum.token,
        subject: demo.token,
      });
      assert.equal(revoked.status, 204);
      const gone = await keystoneCall(ks.authUrl, 'GET', '/auth/tokens?nocatalog', {
        token: magnum.token,
        subject: demo.token,
      });
      assert.equal(gone.status, 404);
    });

    it('gives demo-reader the reader role only and other a token on project other', async () => {
      const reader = await issueToken(ks, 'demo-reader');
      assert.deepEqual((reader.body.token.roles as { name: string }[]).map((r) => r.name), ['reader']);
      const other = await issueToken(ks, 'other');
      assert.equal(other.body.token.project.id, ks.projectIds.other);
      const admin = await issueToken(ks, 'admin');
      assert.equal(admin.body.token.project.id, ks.projectIds.admin);
    });

    if (provider === 'jws') {
      it('signs tokens with ES256 that verify offline against the public key', async () => {
        const pem = await readFile(ks.jwsPublicKeyPath!, 'utf8');
        const key = await importSPKI(pem, 'ES256');
        const demo = await issueToken(ks, 'demo');
        const { payload, protectedHeader } = await jwtVerify(demo.token, key, { algorithms: ['ES256'] });
        assert.equal(protectedHeader.alg, 'ES256');
        assert.equal(payload.sub, demo.body.token.user.id);
        assert.equal(payload.openstack_project_id, ks.projectIds.demo);

        const [h, p, s] = demo.token.split('.') as [string, string, string];
        const tampered = `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
        await assert.rejects(jwtVerify(tampered, key, { algorithms: ['ES256'] }));
      });
    }

    it('stop() kills uwsgi (master and workers) and removes the instance folder', async () => {
      const { dir, pids } = await uwsgiOf(ks.url);
      assert.ok(pids.length >= 2, `master and workers found: ${pids.join(',')}`);
      // Keystone owns its database and key repositories (copied from the cache or freshly made).
      const keystoneUid = Number(execFileSync('id', ['-u', 'keystone'], { encoding: 'utf8' }).trim());
      for (const f of ['keystone.db', 'fernet-keys', 'credential-keys', 'jws-public', 'jws-private']) {
        assert.equal((await stat(join(dir, f))).uid, keystoneUid, `${f} owned by keystone`);
      }
      await ks.stop();
      assert.equal(existsSync(dir), false, `${dir} removed`);
      assert.deepEqual(pids.filter(alive), [], 'no uwsgi process left');
      await assert.rejects(fetch(`${ks.url}/v3`, { signal: AbortSignal.timeout(2000) }));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The uwsgi processes serving `url`: those whose working folder holds a uwsgi.ini bound to its port. */
async function uwsgiOf(url: string): Promise<{ dir: string; pids: number[] }> {
  const port = new URL(url).port;
  let dir = '';
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.startsWith('uwsgi')) continue;
      const cwd = await readlink(`/proc/${entry}/cwd`);
      const ini = await readFile(join(cwd, 'uwsgi.ini'), 'utf8');
      if (!ini.includes(`http-socket = 127.0.0.1:${port}\n`)) continue;
      dir = cwd;
      pids.push(Number(entry));
    } catch {
      // not ours, or gone
    }
  }
  assert.ok(dir, `uwsgi serving ${url} found`);
  return { dir, pids };
}
