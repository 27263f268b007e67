/**
 * Collects writes from many rows in flight and sends each group as one statement: while
 * one statement runs, the next rows queue up, and all of them go in the next one. Under
 * load a statement carries dozens of rows; alone, a row waits for nobody.
 */
export class GroupCommit<In, Out> {
  private queue: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private running = false;

  constructor(
    /** One statement for all inputs; returns one result per input, in order. */
    private readonly write: (inputs: In[]) => Promise<Out[]>,
    private readonly maxGroup = 500,
  ) {}

  push(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    // Let the rows whose answers arrived in the same turn join the first group.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroup);
      try {
        const results = await this.write(group.map((entry) => entry.input));
        group.forEach((entry, index) => entry.resolve(results[index]!));
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    this.running = false;
  }
}
