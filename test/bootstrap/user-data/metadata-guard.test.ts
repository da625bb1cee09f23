// The metadata guard (src/bootstrap/user-data/metadata-guard.ts): the script passes shellcheck and, run by a real
// bash with an iptables that records its calls, adds its one rule (the pod network to the metadata address,
// dropped in the raw table's PREROUTING) once however often it runs; its unit runs before the kubelet, and the
// bootstrap enables it before the kubelet starts any pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { METADATA_GUARD_PATH, METADATA_GUARD_UNIT, metadataGuardScript, metadataGuardUnit } from '../../../src/bootstrap/user-data/metadata-guard.js';
import { nodeConfig } from '../../../src/bootstrap/user-data/node-files.js';
import type { UserDataInput } from '../../../src/bootstrap/user-data/inputs.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';
import { aptInstall } from '../../support/apt.js';
import { input, pki } from '../../support/spec-fixtures.js';
import { endpointAndToken } from '../../support/user-data.js';

const run = promisify(execFile);
const { spec } = parseClusterSpec(input({ labels: { kube_tag: 'v1.35.2' } }));

test('the script passes shellcheck', async () => {
  if (!existsSync('/usr/bin/shellcheck')) await aptInstall(['shellcheck']);
  const file = join(mkdtempSync(join(tmpdir(), 'guard-')), 'guard.sh');
  writeFileSync(file, metadataGuardScript(spec));
  await run('/usr/bin/shellcheck', ['--severity=style', file]);
});

test('run twice by bash: the rule is checked, inserted first in raw PREROUTING once, then only checked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'guard-'));
  const calls = join(dir, 'calls');
  const rules = join(dir, 'rules');
  // an iptables that keeps its rules in a file: -C succeeds when the rule is there, -I adds it
  writeFileSync(join(dir, 'iptables'), `#!/bin/bash\nall="$*"\necho "$all" >> '${calls}'\nrule="\${all/-C PREROUTING/PREROUTING}"\nrule="\${rule/-I PREROUTING 1/PREROUTING}"\ncase "$*" in *" -C "*) grep -qxF -- "$rule" '${rules}' 2>/dev/null ;; *" -I "*) echo "$rule" >> '${rules}' ;; esac\n`);
  chmodSync(join(dir, 'iptables'), 0o755);
  const script = join(dir, 'guard');
  writeFileSync(script, metadataGuardScript(spec));
  const env = { PATH: `${dir}:/usr/bin:/bin` };
  await run('/bin/bash', [script], { env });
  await run('/bin/bash', [script], { env });
  const lines = readFileSync(calls, 'utf8').trim().split('\n');
  const rule = `-s ${spec.network.podCidr} -d 169.254.169.254/32 -m comment --comment magnum: pods may not reach the metadata service -j DROP`;
  assert.deepEqual(lines, [`-w -t raw -C PREROUTING ${rule}`, `-w -t raw -I PREROUTING 1 ${rule}`, `-w -t raw -C PREROUTING ${rule}`]);
  assert.equal(readFileSync(rules, 'utf8').trim().split('\n').length, 1);
});

test('without iptables the guard fails, naming it (the node does not boot unguarded)', async () => {
  const script = join(mkdtempSync(join(tmpdir(), 'guard-')), 'guard');
  writeFileSync(script, metadataGuardScript(spec));
  await assert.rejects(run('/bin/bash', [script], { env: { PATH: '/nonexistent' } }), (e: { stderr: string }) => /iptables is required/.test(e.stderr));
});

test('every node has it: the unit before the kubelet, enabled and started by the bootstrap before the kubelet is', () => {
  assert.match(metadataGuardUnit(), /^Before=kubelet\.service containerd\.service$/m);
  assert.match(metadataGuardUnit(), /^ExecStart=\/usr\/local\/bin\/magnum-metadata-guard$/m);
  for (const i of [{ role: 'worker', caCert: pki.ca.cert }, { role: 'init', pki }] as const) {
    const cfg = nodeConfig(spec, { ...endpointAndToken, nodeName: 'n', ...i } as UserDataInput);
    const guard = cfg.files.find((f) => f.path === METADATA_GUARD_PATH);
    assert.equal(guard?.permissions, '0755');
    assert.ok(!guard?.secret, 'the guard is in the user-data itself');
    const script = cfg.files.find((f) => f.path === '/usr/local/bin/magnum-bootstrap')!.content;
    const enable = script.indexOf(`systemctl enable --now ${METADATA_GUARD_UNIT}`);
    assert.ok(enable > 0 && enable < script.indexOf('systemctl enable kubelet') && enable < script.search(/kubeadm (init|join) --config/), 'guarded before the kubelet runs');
  }
});
