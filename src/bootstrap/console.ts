// Why a server never became a Node, as its console log (Nova os-getConsoleOutput) tells it: the
// bootstrap script's own failure line, or the first-boot agent refusing or ignoring the user-data
// (a Fedora CoreOS image handed cloud-config, an Ubuntu image handed Ignition). The worker shows
// the finding in the waited-on condition, and a create that reaches its deadline fails with it.

import { CONSOLE_PREFIX } from './user-data/bootstrap.js';

/** Condition reasons of a diagnosed node; a create past its deadline keeps them as its failure reason. */
export const BOOT_FAILURE_REASONS = {
  bootstrap: 'NodeBootstrapFailed',
  userData: 'UserDataNotRead',
} as const;

export interface BootFinding {
  reason: (typeof BOOT_FAILURE_REASONS)[keyof typeof BOOT_FAILURE_REASONS];
  message: string;
}

const FAILED = new RegExp(`${CONSOLE_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} FAILED: (.+)`);

/** The first failure the console shows (the later ones are its consequences); undefined when it shows none. */
export function bootFinding(console: string): BootFinding | undefined {
  for (const line of console.split(/\r?\n/)) {
    const failed = FAILED.exec(line);
    if (failed) return { reason: BOOT_FAILURE_REASONS.bootstrap, message: `its bootstrap failed: ${failed[1]!.trim()}` };
    if (/Ignition has failed/.test(line)) {
      return { reason: BOOT_FAILURE_REASONS.userData, message: 'Ignition could not read its user-data (an Ignition image, such as Fedora CoreOS, reads only Ignition configs, not cloud-config), so it never bootstrapped' };
    }
    if (/Unhandled non-multipart \(text\/x-not-multipart\) userdata/.test(line)) {
      return { reason: BOOT_FAILURE_REASONS.userData, message: 'cloud-init did not understand its user-data (a cloud-init image reads #cloud-config, not Ignition), so it never bootstrapped' };
    }
  }
  return undefined;
}

export function isBootFailureReason(reason: string): boolean {
  return (Object.values(BOOT_FAILURE_REASONS) as string[]).includes(reason);
}
