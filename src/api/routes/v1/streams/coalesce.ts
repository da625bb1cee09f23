// When a stream reads and sends after its changes: the first change after a quiet spell is read at
// once (on the next turn of the event loop, so the notifications of one transaction go together),
// later ones are gathered and read at most once every `gapMs` from the start of the last read. A
// lone condition change reaches the page without waiting out a batch window; a storm of changes
// still costs one read per gap. Never two reads at a time.

export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pending = false;
  private stopped = false;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly gapMs: number,
    private readonly onError: (e: Error) => void,
  ) {}

  /** Something changed: read now, or once the gap since the last read's start has passed. */
  poke(): void {
    if (this.stopped) return;
    this.pending = true;
    if (!this.running && !this.timer) this.arm();
  }

  /** No more reads (the stream ended). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const wait = Math.max(0, this.lastStart + this.gapMs - Date.now());
    this.timer = setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.stopped || !this.pending) return;
    this.pending = false;
    this.running = true;
    this.lastStart = Date.now();
    this.read().then(
      () => {
        this.running = false;
        if (this.pending && !this.stopped) this.arm();
      },
      (e: unknown) => {
        this.running = false;
        this.stop();
        this.onError(e instanceof Error ? e : new Error(String(e)));
      },
    );
  }
}
