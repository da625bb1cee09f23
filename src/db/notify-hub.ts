// One LISTEN connection per process for the live views: the clusters' change notifications
// (migration ClusterChangeNotify) fanned out to every subscriber with their JSON payloads. While
// the connection is down, notifications are lost: subscribers get `resync` once it is back (and
// when it drops), and read afresh.
import pg from 'pg';

export type ClusterChange =
  | { kind: 'cluster'; cluster: string; project: string; op: 'I' | 'U' | 'D'; table: 'c' | 'n' }
  | { kind: 'event'; cluster: string; id: number }
  | { kind: 'resync' };

export type Listener = (change: ClusterChange) => void;

const CHANNELS = ['cluster_changed', 'cluster_event_added'] as const;

export class NotifyHub {
  private client: pg.Client | undefined;
  private starting: Promise<void> | undefined;
  private readonly listeners = new Set<Listener>();
  private closed = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly warn: (obj: object, msg: string) => void = () => undefined,
  ) {}

  get healthy(): boolean {
    return this.client !== undefined;
  }

  /** Subscribes (connecting on first use); resolves once the LISTEN is in place. Returns the unsubscribe. */
  async subscribe(l: Listener): Promise<() => void> {
    this.listeners.add(l);
    if (!this.client) {
      this.starting ??= this.start().finally(() => {
        this.starting = undefined;
      });
      await this.starting.catch(() => undefined);
    }
    return () => this.listeners.delete(l);
  }

  private emit(c: ClusterChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(c);
      } catch (e) {
        this.warn({ error: (e as Error).message }, 'live view listener failed');
      }
    }
  }

  private async start(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'magnum-ts-live' });
    client.on('notification', (n) => this.onNotification(n.channel, n.payload));
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      for (const ch of CHANNELS) await client.query(`LISTEN ${ch}`);
    } catch (e) {
      client.end().catch(() => undefined);
      this.schedule();
      throw e;
    }
    this.client = client;
    this.retryMs = 250;
    this.emit({ kind: 'resync' });
  }

  private onNotification(channel: string, payload: string | undefined): void {
    if (!payload) return;
    let p: Record<string, unknown>;
    try {
      p = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return;
    }
    if (channel === 'cluster_changed') {
      this.emit({ kind: 'cluster', cluster: String(p.c), project: String(p.p), op: p.op as 'I' | 'U' | 'D', table: p.t as 'c' | 'n' });
    } else if (channel === 'cluster_event_added') {
      this.emit({ kind: 'event', cluster: String(p.c), id: Number(p.id) });
    }
  }

  private lost(client: pg.Client, e: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.warn({ reason: e.message }, 'live view feed lost; reconnecting');
    this.emit({ kind: 'resync' });
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.listeners.size === 0 || this.client) return;
      this.start().catch((e: Error) => {
        this.warn({ reason: e.message }, 'live view feed reconnect failed');
        this.retryMs = Math.min(this.retryMs * 2, 30_000);
      });
    }, this.retryMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.listeners.clear();
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
