// A LISTEN connection on one PostgreSQL channel. While it is down the feed is not `healthy`
// (readers must not trust caches it guards); every (re)connection and every notification
// calls `onChange`. Its connection is named for its channel (`magnum-ts-listen <channel>`), so an
// operator reading pg_stat_activity tells the template cache's feed from the relay's.
import pg from 'pg';

export interface FeedLog {
  warn(obj: object, msg: string): void;
}

export class ChangeFeed {
  healthy = false;
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 500;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onChange: () => void,
    private readonly log: FeedLog,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: `magnum-ts-listen ${this.channel}` });
    client.on('notification', () => this.onChange());
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
    this.healthy = true;
    this.retryMs = 500;
    this.onChange();
  }

  private lost(client: pg.Client, e: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.healthy = false;
    this.onChange();
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.log.warn({ channel: this.channel, reason: e.message }, 'change feed lost; caches bypassed until it is back');
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.start().catch((e: Error) => {
        this.log.warn({ channel: this.channel, reason: e.message }, 'change feed reconnect failed');
        this.retryMs = Math.min(this.retryMs * 2, 30_000);
        this.schedule();
      });
    }, this.retryMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.healthy = false;
    clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
