// Servers' console logs (what `openstack console log show` prints): the simulated guests write
// their boot agent's and bootstrap's lines; Nova keeps the last lines of each live server.

/** Lines kept per server (a guest's log on a real hypervisor is capped too). */
const MAX_LINES = 2000;

export class ConsoleLogs {
  private readonly logs = new Map<string, string[]>();

  /** Appends text (one or more lines) to a server's log. */
  write(serverId: string, text: string): void {
    const log = this.logs.get(serverId) ?? [];
    log.push(...text.replace(/\n$/, '').split('\n'));
    if (log.length > MAX_LINES) log.splice(0, log.length - MAX_LINES);
    this.logs.set(serverId, log);
  }

  /** The last `length` lines (all when null or negative), newline-terminated as Nova returns them. */
  tail(serverId: string, length: number | null): string {
    const log = this.logs.get(serverId) ?? [];
    const lines = length === null || length < 0 ? log : length === 0 ? [] : log.slice(-length);
    return lines.map((l) => `${l}\n`).join('');
  }

  forget(serverId: string): void {
    this.logs.delete(serverId);
  }

  snapshot(): Record<string, string[]> {
    return Object.fromEntries(this.logs);
  }

  restore(saved: Record<string, string[]> | undefined): void {
    this.logs.clear();
    for (const [id, lines] of Object.entries(saved ?? {})) this.logs.set(id, [...lines]);
  }
}
