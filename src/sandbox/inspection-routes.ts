import type { IncomingMessage, ServerResponse } from 'node:http';
import { SandboxApiError } from './api-error.ts';
import type { FaultInjector, HeldAnswer } from './faults.ts';
import { FaultRatesChange, FaultRatesReplacement, FaultRule } from './faults.ts';
import { noRoute, parseJsonOrUndefined, parseOrRefuse, readBody, send } from './http-io.ts';
import type { SandboxLedger } from './ledger/ledger.ts';
import type { ReceivedCalls } from './received-calls.ts';
import type { SandboxTestFeatures } from './test-features.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** What the /_sandbox/ routes read and change: the parts of one sandbox that server.ts made. */
export interface InspectionDeps {
  ledger: SandboxLedger;
  testFeatures: SandboxTestFeatures;
  received: ReceivedCalls;
  webhooks: WebhookSender;
  faults: FaultInjector;
  held: ReadonlyMap<HeldAnswer, () => void>;
  releaseHeld(): number;
}

/**
 * The sandbox's own routes under INSPECTION_PREFIX (/_sandbox/): what it holds, the test
 * features and the fault rules, apart from the partner's paths (partner-routes.ts) so that
 * server.ts keeps only the server, the faults around a partner call and its life.
 */
export function inspectionRoutes({
  ledger,
  testFeatures,
  received,
  webhooks,
  faults,
  held,
  releaseHeld,
}: InspectionDeps): (req: IncomingMessage, res: ServerResponse, parts: string[]) => Promise<void> {
  async function inspect(req: IncomingMessage, res: ServerResponse, parts: string[]): Promise<void> {
    const [area, id] = parts.map(decodeURIComponent);
    if (area === 'faults' && id !== undefined) return inspectFaults(req, res, id);
    if (area === 'balance-ledger' && req.method === 'GET' && id === undefined) return send(res, 200, ledger.balanceLedger());
    if (area === 'payments' && req.method === 'GET' && id === undefined) {
      return send(res, 200, { payments: ledger.allEffects() });
    }
    if (area === 'payments' && req.method === 'POST' && id === undefined) {
      return send(res, 201, testFeatures.seed(parseJsonOrUndefined(await readBody(req))));
    }
    if (area === 'payments' && req.method === 'PATCH' && id !== undefined) {
      return send(res, 200, testFeatures.alter(id, parseJsonOrUndefined(await readBody(req))));
    }
    if (area === 'list-growth' && id === undefined) {
      if (req.method === 'POST') return send(res, 201, testFeatures.startGrowth(parseJsonOrUndefined(await readBody(req))));
      if (req.method === 'GET') return send(res, 200, testFeatures.growthState());
      if (req.method === 'DELETE') {
        testFeatures.stopGrowth();
        return send(res, 204, undefined);
      }
    }
    if (area === 'list-calls' && req.method === 'GET' && id === undefined) return send(res, 200, testFeatures.listCalls());
    if (area === 'received' && req.method === 'GET' && id === undefined) return send(res, 200, { calls: received.list() });
    if (id === undefined && (area === 'outage' || area === 'balance' || area === 'calls')) {
      const served = await payday(req, res, area);
      if (served) return;
    }
    if (area === 'payments' && req.method === 'GET' && id !== undefined) {
      const effects = ledger.effects(id);
      if (effects === undefined) throw new SandboxApiError('payout.payment.not-found', `no calls for payment ${id}`);
      return send(res, 200, effects);
    }
    if (area === 'webhooks' && req.method === 'GET') return send(res, 200, { attempts: webhooks.attempts() });
    if (area === 'faults' && req.method === 'GET') {
      return send(res, 200, { rates: faults.rates, pending: faults.pending(), held: held.size, holding: [...held.keys()] });
    }
    if (area === 'faults' && req.method === 'DELETE') {
      faults.clear();
      return send(res, 204, undefined);
    }
    if (area === 'faults' && req.method === 'POST') {
      const parsed = FaultRule.safeParse(parseJsonOrUndefined(await readBody(req)));
      if (!parsed.success) {
        throw new SandboxApiError('validation.error', 'a fault rule is {operation?, kind, times?}', {
          body: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
        });
      }
      faults.add(parsed.data);
      return send(res, 201, parsed.data);
    }
    throw noRoute(req, parts);
  }

  /** The payday test features: an outage, the balance at run time, call counts. */
  async function payday(req: IncomingMessage, res: ServerResponse, area: 'outage' | 'balance' | 'calls'): Promise<boolean> {
    const route = `${req.method} ${area}`;
    if (route === 'GET outage') send(res, 200, testFeatures.outageState());
    else if (route === 'POST outage') send(res, 201, { outage: await testFeatures.startOutage(parseJsonOrUndefined(await readBody(req))) });
    else if (route === 'DELETE outage') send(res, 200, await testFeatures.endOutage());
    else if (route === 'GET balance') send(res, 200, ledger.balance());
    else if (route === 'POST balance') send(res, 200, testFeatures.changeBalance(parseJsonOrUndefined(await readBody(req))));
    else if (route === 'GET calls') send(res, 200, callsAnswer(new URL(req.url ?? '/', 'http://sandbox').searchParams));
    else if (route === 'DELETE calls') send(res, 200, testFeatures.resetCalls());
    else return false;
    return true;
  }

  /** All counts, and with ?from=&to= the calls that arrived in that window too. */
  function callsAnswer(query: URLSearchParams): object {
    const from = query.get('from');
    const to = query.get('to');
    if (from === null && to === null) return testFeatures.calls();
    return { ...testFeatures.calls(), between: testFeatures.callsBetween(from ?? '', to ?? '') };
  }

  async function inspectFaults(req: IncomingMessage, res: ServerResponse, sub: string): Promise<void> {
    if (sub === 'release' && req.method === 'POST') return send(res, 200, { released: releaseHeld() });
    if (sub !== 'rates') throw noRoute(req, ['faults', sub]);
    if (req.method === 'GET') return send(res, 200, faults.rates);
    if (req.method === 'PUT') {
      return send(res, 200, faults.replaceRates(parseOrRefuse(FaultRatesReplacement, await readBody(req), 'fault rates')));
    }
    if (req.method === 'PATCH') {
      const change = parseOrRefuse(FaultRatesChange, await readBody(req), 'fault rates');
      try {
        return send(res, 200, faults.changeRates(change));
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new SandboxApiError('validation.error', error.message, { body: [error.message] });
      }
    }
    throw noRoute(req, ['faults', sub]);
  }

  return inspect;
}
