// Barbican's secrets, in memory: stored with their payload (kept as base64) and metadata, per project. What a
// cluster needs: the service stores the cluster's KMS key, the plugin reads its payload, the delete removes it.
import { randomUUID } from 'node:crypto';
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { Faults } from '../common/faults.js';
import { IndexedMap } from '../common/indexed-map.js';

export interface Secret {
  id: string;
  name: string | null;
  projectId: string;
  creatorId: string;
  secretType: string;
  algorithm: string | null;
  bitLength: number | null;
  mode: string | null;
  contentType: string;
  /** The payload, base64. */
  payload: string;
  created: string;
  seq: number;
}

export class BarbicanState implements Auditable, Snapshotable {
  /** `projectName`: `project|name` (a project's secrets of one name). */
  readonly secrets = new IndexedMap<Secret, 'project' | 'projectName'>({ project: (s) => s.projectId, projectName: (s) => (s.name === null ? null : `${s.projectId}|${s.name}`) });
  readonly faults = new Faults();
  /** Barbican's default per-project secrets quota is unlimited (-1). */
  secretQuota = -1;
  private seq = 0;

  add(input: Omit<Secret, 'id' | 'created' | 'seq'>): Secret {
    const s: Secret = { ...input, id: randomUUID(), created: new Date().toISOString().replace(/\.\d+Z$/, ''), seq: ++this.seq };
    this.secrets.set(s.id, s);
    return s;
  }

  auditResources(): AuditResource[] {
    return [...this.secrets.values()].map((s) => ({ type: 'secret', id: s.id, project_id: s.projectId, ...(s.name ? { name: s.name } : {}) }));
  }

  snapshot(): unknown {
    return { secrets: [...this.secrets.values()], seq: this.seq };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as { secrets?: Secret[]; seq?: number };
    this.secrets.clear();
    for (const x of s.secrets ?? []) this.secrets.set(x.id, x);
    this.seq = s.seq ?? this.secrets.size;
  }
}
