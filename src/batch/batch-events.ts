import { EventEmitter } from 'node:events';
import { listen } from '../events/subscription.ts';

/** In-process notice that a batch's counts may have changed, for batchProgress subscriptions. */
export class BatchEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(batchId: string): void {
    this.emitter.emit(batchId, batchId);
  }

  subscribe(batchId: string): AsyncIterableIterator<string> {
    return listen<string>(this.emitter, batchId);
  }
}
