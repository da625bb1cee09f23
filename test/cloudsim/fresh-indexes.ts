// The simulators' indexes checked after a test's calls: every item filed under what it holds now
// (an in-place change without refile would make lists and lookups miss it).
import assert from 'node:assert/strict';
import type { CloudSims } from '../../cloudsim/cloud.js';
import { staleEntries } from '../../cloudsim/common/indexed-map.js';

/** Fails naming each `service.map:id` whose index entries no longer match the item. */
export function assertFreshIndexes(sims: CloudSims): void {
  const states: Record<string, object> = {
    glance: sims.glance.state,
    nova: sims.nova.state,
    neutron: sims.neutron.state,
    octavia: sims.octavia.state,
    cinder: sims.cinder.state,
    designate: sims.designate.state,
    manila: sims.manila.state,
    barbican: sims.barbican.state,
  };
  const stale = Object.entries(states).flatMap(([service, state]) => staleEntries(state).map((e) => `${service}.${e}`));
  assert.deepEqual(stale, [], 'index entries out of step with their items');
}
