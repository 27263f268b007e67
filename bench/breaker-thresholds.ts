import { generateKeyPairSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { troubleOf } from '../src/partner/breaker-states.ts';
import { PaymentAttempts } from '../src/payments/attempt.ts';
import { PayoutClient } from '../src/payout/client.ts';
import type { ObservedCall } from '../src/payout/call-hooks.ts';
import { createSandbox } from '../src/sandbox/server.ts';

/**
 * Where to set the partner breaker (src/partner/): how long runs of trouble get when some
 * calls fail at random but the partner is up, against how fast trouble piles up when it is
 * down. Pays payments through the embedded sandbox with random faults (500s, dropped
 * connections, 429s in equal shares) at several rates, 8 in flight as a worker does, and
 * records the longest run of calls in a row that ended in trouble, and over how many
 * different paths; then refuses every connection and times how long 12 troubles take.
 *
 *   npx tsx bench/breaker-thresholds.ts [--payments 1500]
 */
const { values } = parseArgs({ options: { payments: { type: 'string', default: '1500' } } });
const payments = Number(values.payments);
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keys = {
  pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  priv: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
};

interface Streaks {
  longest: number;
  longestPaths: number;
  calls: number;
  trouble: number;
}

async function run(rate: number): Promise<Streaks> {
  const third = rate / 3;
  const sandbox = createSandbox({
    agentId: 'bench',
    apiToken: 'bench-token',
    publicKeyPem: keys.pub,
    balance: '999999999.00',
    faults: { failBeforeRate: third, dropBeforeRate: third, rateLimitRate: third },
  } as Parameters<typeof createSandbox>[0]);
  const url = await sandbox.listen();
  const client = new PayoutClient({
    baseUrl: url,
    agentId: 'bench',
    apiToken: 'bench-token',
    privateKeyPem: keys.priv,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    maxRetries: 3,
    backoff: { baseMs: 1, maxMs: 5 },
  });
  const streaks: Streaks = { longest: 0, longestPaths: 0, calls: 0, trouble: 0 };
  let streak = 0;
  const paths = new Set<string>();
  client.observe({
    onCall(call: ObservedCall) {
      streaks.calls++;
      if (troubleOf(call.outcome) === null) {
        streak = 0;
        paths.clear();
        return;
      }
      streaks.trouble++;
      streak++;
      paths.add(call.path);
      if (streak > streaks.longest) {
        streaks.longest = streak;
        streaks.longestPaths = paths.size;
      }
    },
  });
  // Retry-After is honoured by the attempts: keep it short so the bench measures calls, not waits.
  const attempts = new PaymentAttempts(client, { maxSends: 4, backoff: { baseMs: 1, maxMs: 5 }, maxRetryAfterMs: 5 });
  const limit = pLimit(8);
  await Promise.all(
    Array.from({ length: payments }, (_, i) =>
      limit(async () => {
        const id = `b-${rate}-${i}`;
        const payload = {
          amount: { value: '100.00', currency: 'RUB' as const },
          recipientDetails: { providerCode: 'sbp-b2c' as const, fields: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
        };
        const created = await attempts.create(id, payload);
        if (created.kind === 'ready') await attempts.execute(id);
      }),
    ),
  );
  await client.close();
  await sandbox.close();
  return streaks;
}

async function refusedRate(): Promise<number> {
  const client = new PayoutClient({
    baseUrl: 'http://127.0.0.1:9',
    agentId: 'bench',
    apiToken: 'x',
    privateKeyPem: keys.priv,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    maxRetries: 0,
  });
  let troubles = 0;
  client.observe({ onCall: () => troubles++ });
  const started = performance.now();
  const limit = pLimit(8);
  await Promise.all(Array.from({ length: 12 }, () => limit(() => client.getBalance().catch(() => undefined))));
  const ms = performance.now() - started;
  await client.close();
  if (troubles !== 12) throw new Error(`expected 12 refused calls, saw ${troubles}`);
  return ms;
}

const rows: string[] = [];
for (const rate of [0.05, 0.1, 0.2, 0.33]) {
  const s = await run(rate);
  rows.push(`| ${(rate * 100).toFixed(0)} % | ${s.calls} | ${s.trouble} | ${s.longest} | ${s.longestPaths} |`);
}
const ms = await refusedRate();
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${payments} payments per rate, 8 in flight`,
);
console.log('| calls failing at random | calls | in trouble | longest run in trouble | paths in that run |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`12 calls refused in a row (partner down, 8 in flight): ${ms.toFixed(0)} ms`);
