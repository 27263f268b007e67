import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { eventTypes, isEventType } from '../../src/outbound/index.ts';

export interface ReceivedEvent {
  id: string;
  type: string;
  timestamp: string;
  sequence: number;
  data: Record<string, any>;
  /** Which of the receiver's secrets verified it (0: the first given). */
  verifiedBy: number[];
}

export type Answer = 'ok' | 'fail' | 'hang' | 'redirect';

/**
 * A receiver of outbound events as a company would write one: every delivery is verified
 * with the Standard Webhooks package's own verifier (standardwebhooks on npm) against each
 * secret it knows (a list's events, type event.list, are kept one by one); one that no
 * secret verifies is answered 400 and kept apart. `answer`
 * decides what the next deliveries get: a 2xx, a 503, no answer at all, or a redirect;
 * `hold` keeps a verified delivery's 2xx back until `release`.
 */
export async function startEventReceiver() {
  const secrets: string[] = [];
  const received: ReceivedEvent[] = [];
  const unverified: string[] = [];
  /** Events per verified request (a list: event.list, or one). */
  const requestSizes: number[] = [];
  /** Each verified request's webhook-id (a list's: list_<first event id>_<count>). */
  const requestIds: string[] = [];
  const hanging: ServerResponse[] = [];
  const held: ServerResponse[] = [];
  let holding = false;
  let answer: Answer = 'ok';
  let requests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      requests += 1;
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      if (answer === 'fail') {
        res.writeHead(503).end('down for maintenance');
        return;
      }
      if (answer === 'redirect') {
        res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        return;
      }
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      const verifiedBy = secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(text, headers);
          return [i];
        } catch {
          return [];
        }
      });
      if (verifiedBy.length === 0) {
        unverified.push(text);
        res.writeHead(400).end('signature does not verify');
        return;
      }
      const body = JSON.parse(text) as Omit<ReceivedEvent, 'verifiedBy'> & { events?: Array<Omit<ReceivedEvent, 'verifiedBy'>> };
      if (body.id !== headers['webhook-id']) {
        unverified.push(text);
        res.writeHead(400).end('webhook-id is not the body id');
        return;
      }
      const events = body.type === 'event.list' ? body.events! : [body];
      requestSizes.push(events.length);
      requestIds.push(headers['webhook-id']);
      for (const event of events) received.push({ ...event, verifiedBy });
      if (holding) held.push(res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/payout-events`,
    secrets,
    received,
    unverified,
    requestSizes,
    requestIds,
    requests: () => requests,
    answer(next: Answer) {
      answer = next;
    },
    /** Takes the next events but answers them only at release(): a delivery stays in flight meanwhile. */
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type EventReceiver = Awaited<ReturnType<typeof startEventReceiver>>;

/** The one format of every time in an event (as `timestamp`): ISO 8601, UTC, milliseconds. */
const ISO_MS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TIMES = ['payAt', 'rescheduledFrom', 'pausedAt', 'startsAt', 'endsAt', 'failingSince'];

/** Issue 37: every field docs/api/events.md lists for the type is there (null when it has no value), and no other; times in one format. */
export function expectDocumentedShape(events: readonly ReceivedEvent[]): void {
  for (const event of events) {
    expect(isEventType(event.type), event.type).toBe(true);
    expect(Object.keys(event.data).sort(), event.type).toEqual([...eventTypes[event.type as keyof typeof eventTypes].fields].sort());
    expect(event.timestamp).toMatch(ISO_MS_UTC);
    for (const name of TIMES)
      if (event.data[name] !== undefined && event.data[name] !== null)
        expect(event.data[name], `${event.type} ${name}`).toMatch(ISO_MS_UTC);
  }
}
