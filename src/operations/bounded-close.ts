// Shutting down while Redis (or PostgreSQL) does not answer: a graceful close of a BullMQ queue or
// worker, or of an ioredis connection, waits for replies that may never come. Each close gets the
// time left until one deadline; whatever has not finished by then is abandoned (its later failure
// ignored) and the caller disconnects the connections, which fails the waiting commands at once.

export interface Deadline {
  /** Waits for `work` at most until the deadline; true when it finished (or failed) in time. */
  within(work: Promise<unknown> | undefined): Promise<boolean>;
  /** Milliseconds left. */
  left(): number;
}

export function deadline(ms: number): Deadline {
  const end = Date.now() + ms;
  return {
    left: () => Math.max(0, end - Date.now()),
    async within(work) {
      if (!work) return true;
      const settled = work.then(
        () => true,
        () => true,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), Math.max(0, end - Date.now()));
      });
      try {
        return await Promise.race([settled, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
