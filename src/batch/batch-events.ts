import { EventEmitter, on } from 'node:events';

/** In-process notice that a batch's counts may have changed, for batchProgress subscriptions. */
export class BatchEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(batchId: string): void {
    this.emitter.emit(batchId);
  }

  async *subscribe(batchId: string): AsyncGenerator<void> {
    for await (const _ of on(this.emitter, batchId)) yield;
  }
}
