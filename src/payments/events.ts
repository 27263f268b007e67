import { EventEmitter } from 'node:events';
import { listen } from '../events/subscription.ts';

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

  subscribe(paymentId: string): AsyncIterableIterator<PaymentChanged> {
    return listen<PaymentChanged>(this.emitter, paymentId);
  }
}
