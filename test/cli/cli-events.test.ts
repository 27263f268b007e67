import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { budget, startPayout, type PayoutResult } from '../support/cli-process.ts';
import { startEventReceiver } from '../support/event-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { uploadCsv } from '../support/fault-database.ts';
import { GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * `payout events …` as an admin runs it against a running gateway (docs/api/events.md): a
 * real receiver verifies every delivery with the standardwebhooks package, so what the
 * commands say is checked against what arrived.
 */
const sample = new URL('../../samples/payroll-valid.csv', import.meta.url).pathname;
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'payout-cli-events-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => killAllGateways());
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const payout = (args: string[], env: Record<string, string>): Promise<PayoutResult> =>
  startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' }).done;
const json = (result: PayoutResult) => JSON.parse(result.stdout) as Record<string, any>;
/** A limit for a broken run only: deliveries arrive within a poll. */
const CONDITION_MS = 120_000;

describe('payout events', () => {
  it(
    'subscribes a receiver, shows the log, resends, replays, rotates, turns off and deletes; operators are refused',
    { timeout: budget(12) },
    async () => {
      const receiver = await startEventReceiver();
      try {
        const dir = await tempDir();
        const keys = { adam: 'admin', olga: 'operator' } as const;
        const gateway = GatewayProcess.spawn('gateway', {
          DATA_DIR: dir,
          PORT: '0',
          GATEWAY_API_KEYS: namedApiKeysEnv(keys),
          EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
          EVENT_POLL_MS: '50',
        });
        const url = await gateway.ready;
        const keyFile = async (who: keyof typeof keys) => {
          const file = join(dir, `${who}.key`);
          await writeFile(file, `${apiKey(who)}\n`, { mode: 0o600 });
          return file;
        };
        const admin = { PAYOUT_GATEWAY_URL: url, DATA_DIR: await tempDir(), PAYOUT_CLI_KEY_FILE: await keyFile('adam') };
        const operator = { ...admin, PAYOUT_CLI_KEY_FILE: await keyFile('olga') };

        const types = await payout(['events', 'types'], admin);
        expect(types.code, types.stderr).toBe(0);
        expect(types.stdout).toContain('batch.imported');
        expect(types.stdout).toContain('payment.paid');

        const refused = await payout(['events', 'list'], operator);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toBe('payout events list: key:olga has the operator role; this needs admin\n');
        expect(refused.stdout + refused.stderr).not.toContain(apiKey('olga'));

        const none = await payout(['events', 'list'], admin);
        expect(none.stdout).toContain('No event subscriptions. Add one: payout events subscribe <url>');

        const badUrl = await payout(['events', 'subscribe', 'ftp://example.com/hook'], admin);
        expect(badUrl.code).toBe(2);
        expect(badUrl.stderr).toContain('ftp://example.com/hook');

        const subscribed = await payout(['events', 'subscribe', receiver.url, '--description', 'HR system', '--json'], admin);
        expect(subscribed.code, subscribed.stderr).toBe(0);
        const { subscription, secret } = json(subscribed) as { subscription: { id: string }; secret: string };
        expect(secret).toMatch(/^whsec_/);
        receiver.secrets.push(secret);
        const id = subscription.id;

        // Something happens: a payroll is imported, and its event arrives, signed.
        const imported = await uploadCsv(url, 'olga', await readFile(sample, 'utf8'), 'payroll-valid.csv');
        const batchId: string = imported.data!.importBatch.batch.id;
        const first = await eventually(() => {
          const event = receiver.received.find((e) => e.type === 'batch.imported');
          if (event === undefined) throw new Error(`no batch.imported yet; received ${receiver.received.map((e) => e.type).join(', ')}`);
          return event;
        }, CONDITION_MS);
        expect(first.data).toEqual(expect.objectContaining({ batchId }));

        // The deliverer records a delivery after its 2xx: the list and the log are read until they show it.
        const list = await eventually(async () => {
          const read = await payout(['events', 'list'], admin);
          expect(read.code, read.stderr).toBe(0);
          expect(read.stdout).toContain(receiver.url);
          expect(read.stdout).toContain('up to date');
          return read;
        }, CONDITION_MS);

        const log = await eventually(async () => {
          const read = await payout(['events', 'log', id], admin);
          expect(read.code, read.stderr).toBe(0);
          expect(read.stdout).toMatch(new RegExp(`batch\\.imported ${first.id}\\s+1\\s+delivered 204`));
          return read;
        }, CONDITION_MS);
        expect(log.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/);
        // Issue 37: the log's --json document gives the sequence number as the payload does, a number.
        const logJson = await payout(['events', 'log', id, '--json'], admin);
        expect(logJson.code, logJson.stderr).toBe(0);
        const logged = (json(logJson).deliveries as Array<{ eventId: string; sequence: unknown }>).find((d) => d.eventId === first.id);
        expect(logged?.sequence).toBe(first.sequence);
        expect(json(logJson).subscription).toMatchObject({ id, url: receiver.url });

        const before = receiver.received.length;
        const resent = await payout(['events', 'resend', id, first.id], admin);
        expect(resent.code, resent.stderr).toBe(0);
        expect(resent.stdout).toBe(`Sent ${first.id} again: delivered (HTTP 204).\n`);
        expect(receiver.received.slice(before).map((e) => e.id)).toEqual([first.id]);

        const unknownEvent = await payout(['events', 'resend', id, 'evt_nothing'], admin);
        expect(unknownEvent.code).toBe(2);
        expect(unknownEvent.stderr).toContain('evt_nothing');
        const unknownJson = await payout(['events', 'resend', id, 'evt_nothing', '--json'], admin);
        expect(unknownJson.code).toBe(2);
        expect(JSON.parse(unknownJson.stderr.trim().split('\n').at(-1)!)).toMatchObject({
          error: { code: 'EVENT_NOT_FOUND', exitCode: 2 },
        });

        const badSince = await payout(['events', 'replay', id, '--since', 'last tuesday'], admin);
        expect(badSince.code).toBe(2);
        expect(badSince.stderr).toContain('--since last tuesday is not a time');

        const replayFrom = receiver.received.length;
        const replayed = await payout(
          ['events', 'replay', id, '--since', new Date(Date.parse(first.timestamp) - 60_000).toISOString()],
          admin,
        );
        expect(replayed.code, replayed.stderr).toBe(0);
        expect(replayed.stdout).toMatch(/goes out again, in order: \d+ events? to send/);
        await eventually(() => expect(receiver.received.slice(replayFrom).map((e) => e.id)).toContain(first.id), CONDITION_MS);

        const rotated = await payout(['events', 'rotate', id, '--json'], admin);
        expect(rotated.code, rotated.stderr).toBe(0);
        const next = json(rotated) as { secret: string; previousValidUntil: string };
        expect(next.secret).toMatch(/^whsec_/);
        expect(next.secret).not.toBe(secret);
        // The receiver learns the new secret; during the overlap each delivery verifies with both.
        receiver.secrets.push(next.secret);
        const afterRotation = receiver.received.length;
        await uploadCsv(url, 'olga', await readFile(sample, 'utf8'), 'payroll-again.csv');
        const late = await eventually(() => {
          const event = receiver.received.slice(afterRotation).find((e) => e.type === 'batch.imported');
          if (event === undefined) throw new Error('no second batch.imported yet');
          return event;
        }, CONDITION_MS);
        expect(late.verifiedBy).toEqual([0, 1]);

        const tooMany = await payout(['events', 'update', id, '--events-per-request', '101'], admin);
        expect(tooMany.code).toBe(2);
        expect(tooMany.stderr).toContain('eventsPerRequest 101 must be a whole number from 1 to 100');
        const lists = await payout(['events', 'update', id, '--events-per-request', '25', '--json'], admin);
        expect(lists.code, lists.stderr).toBe(0);
        expect(json(lists)).toMatchObject({ subscription: { id, eventsPerRequest: 25 } });
        expect((await payout(['events', 'list'], admin)).stdout).toMatch(new RegExp(`${id}\\s+\\S+\\s+every type\\s+lists of 25\\s`));

        const off = await payout(['events', 'update', id, '--disable'], admin);
        expect(off.code, off.stderr).toBe(0);
        expect(off.stdout).toContain(`${receiver.url}: off`);
        const both = await payout(['events', 'update', id, '--enable', '--disable'], admin);
        expect(both.stderr).toContain('give --enable or --disable, not both');

        const deleted = await payout(['events', 'delete', id], admin);
        expect(deleted.stdout).toBe(`Deleted subscription ${id}: nothing more is sent to it.\n`);
        const gone = await payout(['events', 'log', id], admin);
        expect(gone.code).toBe(2);
        expect(gone.stderr).toContain(`no event subscription ${id}: payout events list shows them`);

        // The secrets were shown once, to the admin who asked; nothing else printed them.
        const everything = [types, refused, none, list, log, resent, replayed, off, deleted, gone].map((r) => r.stdout + r.stderr).join('');
        expect(everything).not.toContain(secret.slice(6));
        expect(everything).not.toContain(next.secret.slice(6));
        expect(receiver.unverified).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
  );
});
