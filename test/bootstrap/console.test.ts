// Why a server never became a Node, as its console log tells it: the bootstrap script's first failure line, or
// the first-boot agent refusing or ignoring user-data of the other format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOOT_FAILURE_REASONS, bootFinding, isBootFailureReason } from '../../src/bootstrap/console.js';
import { CONSOLE_PREFIX } from '../../src/bootstrap/user-data/bootstrap.js';

test('console findings: the bootstrap\'s first failure, Ignition refusing cloud-config, cloud-init ignoring Ignition', () => {
  const f = bootFinding('noise\nmagnum-bootstrap: FAILED: kubeadm and kubelet 1.35.x are required; installing at boot is disabled\nmagnum-bootstrap: FAILED: line 9: x\n');
  assert.deepEqual(f, { reason: 'NodeBootstrapFailed', message: 'its bootstrap failed: kubeadm and kubelet 1.35.x are required; installing at boot is disabled' });
  assert.equal(bootFinding('Ignition has failed. Please ensure your config is valid. Note that only\n')?.reason, 'UserDataNotRead');
  assert.match(bootFinding("cloud-init[1]: WARNING: Unhandled non-multipart (text/x-not-multipart) userdata: 'b'{...'")!.message, /cloud-init did not understand/);
  assert.equal(bootFinding('magnum-bootstrap: kubeadm join done\n'), undefined);
  assert.ok(isBootFailureReason('NodeBootstrapFailed') && !isBootFailureReason('Timeout'));
});

test('console findings: the first one counts, whichever kind; CRLF consoles read the same; only the prefix the script prints', () => {
  assert.deepEqual(BOOT_FAILURE_REASONS, { bootstrap: 'NodeBootstrapFailed', userData: 'UserDataNotRead' });
  const crlf = `boot\r\n${CONSOLE_PREFIX} FAILED: sha256 of x does not match  \r\nIgnition has failed\r\n`;
  assert.deepEqual(bootFinding(crlf), { reason: 'NodeBootstrapFailed', message: 'its bootstrap failed: sha256 of x does not match' });
  assert.equal(bootFinding('Ignition has failed\nmagnum-bootstrap: FAILED: later\n')?.reason, 'UserDataNotRead');
  assert.equal(bootFinding('magnum-bootstrapX FAILED: no\nsomething-magnum-bootstrap: FAILED:\n'), undefined, 'a FAILED: with nothing after it is no finding');
  assert.equal(bootFinding(''), undefined);
  assert.ok(isBootFailureReason('UserDataNotRead'));
});
