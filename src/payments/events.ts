import { EventEmitter, on } from 'node:events';

export interface PaymentChanged {
  paymentId: string;
  status: string;
}

/**
 * In-process fan-out of payment status changes to GraphQL subscriptions. Several
 * gateway processes each learn changes from their own webhooks and reconciliation.
 */
export class PaymentEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(change: PaymentChanged): void {
    this.emitter.emit(change.paymentId, change);
  }

  async *subscribe(paymentId: string, signal?: AbortSignal): AsyncGenerator<PaymentChanged> {
    try {
      for await (const [change] of on(this.emitter, paymentId, { signal })) yield change as PaymentChanged;
    } catch (error) {
      if ((error as { name?: string }).name !== 'AbortError') throw error;
    }
  }
}
