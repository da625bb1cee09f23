// The whole simulated cloud in one JSON file (CLOUDSIM_STATE_FILE), so a restarted `npm start`
// keeps its cloud: Keystone's identities and every service's resources. Written atomically
// (temporary file, then rename), periodically and when the simulator closes; read at start.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Snapshotable } from './common/audit.js';

export const SNAPSHOT_VERSION = 1;

export interface CloudSnapshot {
  version: typeof SNAPSHOT_VERSION;
  saved_at: string;
  /** Each service's own snapshot, by service name (keystone, glance, nova, ...). */
  services: Record<string, unknown>;
}

/** A service's state, which may not know how to save itself (yet). */
export type MaybeSnapshotable = Partial<Snapshotable> | object;

const asSnapshotable = (state: MaybeSnapshotable): Snapshotable | undefined => {
  const s = state as Partial<Snapshotable>;
  return typeof s.snapshot === 'function' && typeof s.restore === 'function' ? (s as Snapshotable) : undefined;
};

export function snapshotCloud(states: Record<string, MaybeSnapshotable>, now = new Date()): CloudSnapshot {
  const services: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(states)) {
    const s = asSnapshotable(state);
    if (s) services[name] = s.snapshot();
  }
  return { version: SNAPSHOT_VERSION, saved_at: now.toISOString(), services };
}

/** Restores the services the snapshot holds; returns the names of those restored (the others keep their seed). */
export function restoreCloud(states: Record<string, MaybeSnapshotable>, snapshot: CloudSnapshot): Set<string> {
  const restored = new Set<string>();
  for (const [name, state] of Object.entries(states)) {
    const s = asSnapshotable(state);
    const data = snapshot.services[name];
    if (!s || data === undefined) continue;
    s.restore(data);
    restored.add(name);
  }
  return restored;
}

/** The saved cloud, or undefined when the file does not exist yet. A damaged file is an error (never silently replaced). */
export function readSnapshot(path: string): CloudSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const doc = JSON.parse(text) as Partial<CloudSnapshot>;
  if (doc.version !== SNAPSHOT_VERSION || !doc.services || typeof doc.services !== 'object') {
    throw new Error(`${path}: not a cloudsim state file of version ${SNAPSHOT_VERSION}`);
  }
  return doc as CloudSnapshot;
}

export function writeSnapshot(path: string, snapshot: CloudSnapshot): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(snapshot), { mode: 0o600 });
  renameSync(tmp, path);
}

/** Saves `take()` to `path` every `intervalMs` (0: only when asked) and on `stop()`. */
export class StateSaver {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    private readonly take: () => CloudSnapshot,
    intervalMs: number,
    private readonly log: (message: string) => void = () => {},
  ) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.saveQuietly(), intervalMs);
      this.timer.unref();
    }
  }

  save(): void {
    writeSnapshot(this.path, this.take());
  }

  private saveQuietly(): void {
    try {
      this.save();
    } catch (e) {
      this.log(`cloudsim: saving the state to ${this.path} failed: ${(e as Error).message}`);
    }
  }

  /** Stops the timer and (unless told not to) saves one last time. */
  stop(save = true): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (save) this.save();
  }
}
