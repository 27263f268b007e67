import pg from 'pg';
import type { Logger } from '../log/logger.ts';
import { backoffDelay, type BackoffOptions } from '../lib/retry.ts';

export interface PgListenerOptions {
  connectionString: string;
  channel: string;
  onNotification(payload: string): void;
  /** After every successful LISTEN, the first and each one after a reconnect: notifications sent meanwhile were lost. */
  onListening(): void;
  logger: Logger;
  backoff?: BackoffOptions;
}

/** Never retry in a tight loop, whatever the jitter picks (floorMs). */
export const reconnectBackoff: BackoffOptions = { baseMs: 250, maxMs: 10_000, floorMs: 100 };

/**
 * One dedicated connection per process that LISTENs on one channel. Pooled connections
 * cannot listen (a pool hands a connection to whoever asks next). A lost connection (a
 * server restart, pg_terminate_backend, a network cut noticed by keepalive) is logged and
 * replaced with jittered backoff; it never ends the process.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private started = false;
  private stopped = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PgListenerOptions) {}

  /** Connects on first use only: a process nobody subscribes in (a worker) holds no extra connection. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.connect();
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const { connectionString, channel, logger } = this.options;
    const client = new pg.Client({
      connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      application_name: 'payout-gateway events',
    });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.stopped) return;
      const delay = backoffDelay(this.attempt++, this.options.backoff ?? reconnectBackoff);
      logger.warn({ err, retryInMs: delay }, 'event listener connection lost; events from other processes wait until it is back');
      this.timer = setTimeout(() => void this.connect(), delay);
      this.timer.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) this.options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    if (this.attempt > 0) logger.info({ channel }, 'event listener connected again');
    this.attempt = 0;
    this.options.onListening();
  }
}
