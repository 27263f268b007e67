import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { EventSender } from '../../src/outbound/delivery/send-event.ts';
import { signingKeys } from '../../src/outbound/signing.ts';

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * What the delivery log says of a receiver that is not there, in words (the page, `payout
 * events log`). Finding (walking issue 31: the receiver stopped mid-payroll): it said
 * "unreachable: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4100".
 */
it('a receiver that refuses the connection: "connection refused by 127.0.0.1:PORT"', async () => {
  const port = await closedPort();
  const sender = new EventSender({ allowLocal: true }, 10_000);
  try {
    const result = await sender.send({
      url: `http://127.0.0.1:${port}/events`,
      id: 'evt-1',
      body: '{}',
      keys: signingKeys(['whsec_' + Buffer.alloc(24, 7).toString('base64')]),
    });
    expect(result).toMatchObject({ outcome: 'unreachable', statusCode: null, excerpt: `connection refused by 127.0.0.1:${port}` });
  } finally {
    await sender.close();
  }
});
