import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { eventTypeNames, eventTypes } from '../../src/outbound/index.ts';
import { EventSender } from '../../src/outbound/delivery/send-event.ts';
import { newSigningSecret, signingKeys } from '../../src/outbound/signing.ts';
import { eventually } from '../support/eventually.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('outbound events as documented', () => {
  it('names every event type in the README and in docs/api/events.md, and no other', () => {
    for (const [file, text] of [
      ['README.md', read('README.md')],
      ['docs/api/events.md', read('docs/api/events.md')],
    ] as const) {
      const named = new Set(
        [...text.matchAll(/`((?:batch|batch_row|payment|reconciliation|event_subscription)\.[a-z_]+)`/g)].map((m) => m[1]),
      );
      expect([...named].sort(), file).toEqual([...eventTypeNames].sort());
    }
  });

  // Issue 37: a receiver's developer reads the table and meets every field it lists, no other.
  it('lists in docs/api/events.md every field of each type’s data, as the code sends them', () => {
    const text = read('docs/api/events.md');
    const table = text.slice(text.indexOf('## Event types'));
    for (const type of eventTypeNames) {
      const row = new RegExp(`^\\| \`${type.replace('.', '\\.')}\` \\|[^|]*\\|([^|]*)\\|$`, 'm').exec(table);
      expect(row, type).not.toBeNull();
      expect(documentedFields(row![1]!), type).toEqual([...eventTypes[type].fields].sort());
    }
  });

  it('the sample receiver verifies a signed delivery and refuses a forged one', async () => {
    const secret = newSigningSecret();
    const child = spawn(process.execPath, ['samples/event-receiver.mjs'], {
      cwd: new URL('../../', import.meta.url),
      env: { ...process.env, EVENT_SECRET: secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const sender = new EventSender({ allowLocal: true }, 10_000);
    try {
      const port = await eventually(() => {
        const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        expect(listening).not.toBeNull();
        return listening![1];
      }, 60_000);
      const body = JSON.stringify({
        id: 'evt-1',
        type: 'batch.completed',
        timestamp: new Date().toISOString(),
        sequence: 1,
        data: { batchId: 'b1' },
      });
      const url = `http://127.0.0.1:${port}/`;
      expect(await sender.send({ url, id: 'evt-1', body, keys: signingKeys([secret]) })).toMatchObject({
        outcome: 'delivered',
        statusCode: 204,
      });
      expect(await sender.send({ url, id: 'evt-2', body, keys: signingKeys([newSigningSecret()]) })).toMatchObject({
        outcome: 'failed',
        statusCode: 400,
      });
      await eventually(() => expect(out).toContain('#1 batch.completed {"batchId":"b1"}'), 30_000);
      expect(out).not.toContain('evt-2');
    } finally {
      await sender.close();
      child.kill();
      await once(child, 'exit');
    }
  });
});

/** The field names of a table cell: "batchId, status (VALIDATED or REJECTED), by (a person, or …)" gives batchId, by, status. */
function documentedFields(cell: string): string[] {
  const flat = cell.replace(/\([^)]*\)/g, '');
  return flat
    .split(',')
    .map((item) => /^\s*`?([A-Za-z]+)/.exec(item)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
}
