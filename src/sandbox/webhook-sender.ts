import { Agent, request } from 'undici';
import { backoffCeiling } from '../lib/retry.ts';
import type { Logger } from '../log/logger.ts';
import type { Payment, Webhook } from '../payout/models.ts';
import { signWebhook } from '../payout/signature.ts';

export interface WebhookSenderOptions {
  agentId: string;
  secret: string;
  /** Attempts per notification, the first included. */
  attempts: number;
  /** Delay before the second attempt; it doubles after each failure, without jitter (tests count on the schedule). */
  backoffMs: number;
  logger?: Logger;
}

export interface WebhookAttempt {
  paymentId: string;
  status: string;
  attempt: number;
  /** HTTP status of the answer, absent when there was none. */
  httpStatus?: number;
  error?: string;
  delivered: boolean;
}

/** Posts status notifications (spec, Events), repeating until a 2xx or the attempts run out. */
export class WebhookSender {
  private readonly log: WebhookAttempt[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly dispatcher = new Agent({ connect: { timeout: 5_000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  private closed = false;
  private readonly wake = new Set<() => void>();

  constructor(private readonly options: WebhookSenderOptions) {}

  notify(payment: Payment): void {
    if (payment.webhookUrl === undefined || this.closed) return;
    const webhook: Webhook = {
      agentId: this.options.agentId,
      paymentId: payment.paymentId,
      status: payment.status,
      amount: payment.amount,
      ...(payment.billingDetails === undefined ? {} : { billingDetails: payment.billingDetails }),
    };
    const delivery = this.deliver(payment.webhookUrl, webhook).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  attempts(): WebhookAttempt[] {
    return this.log.map((attempt) => ({ ...attempt }));
  }

  /** Resolves once every notification so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.wake) wake();
    await this.idle();
    await this.dispatcher.close();
  }

  private async deliver(url: string, webhook: Webhook): Promise<void> {
    const body = JSON.stringify(webhook);
    const signature = signWebhook(this.options.secret, webhook);
    for (let attempt = 1; attempt <= this.options.attempts && !this.closed; attempt++) {
      const record: WebhookAttempt = { paymentId: webhook.paymentId, status: webhook.status.value, attempt, delivered: false };
      try {
        const response = await request(url, {
          method: 'POST',
          dispatcher: this.dispatcher,
          headers: { 'content-type': 'application/json', signature },
          body,
        });
        await response.body.dump();
        record.httpStatus = response.statusCode;
        record.delivered = response.statusCode >= 200 && response.statusCode < 300;
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error);
      }
      this.log.push(record);
      if (record.delivered) return;
      this.options.logger?.warn({ paymentId: webhook.paymentId, attempt, httpStatus: record.httpStatus }, 'webhook not accepted');
      await this.pause(backoffCeiling(attempt - 1, { baseMs: this.options.backoffMs, maxMs: Infinity }));
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake.add(done);
    });
  }
}
