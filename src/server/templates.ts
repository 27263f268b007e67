import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseColumns, exportChunks, exportMediaTypes } from '../batch/index.ts';
import { answerOf } from '../lib/gateway-error.ts';
import { formatOf } from '../payout/field-formats.ts';
import { toMinorUnits } from '../money/money.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PayoutError } from '../payout/errors.ts';
import { providerCodes, type ProviderCode, type ProviderInfo } from '../payout/models.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { chooseFormat } from './batch-downloads.ts';
import { allowGetWithKey } from './file-route-guard.ts';

const TEMPLATE = /^\/templates\/([a-z0-9-]{1,40})\.(csv|xlsx)$/;

export function isTemplate(path: string): boolean {
  return TEMPLATE.test(path);
}

/** A round amount inside the provider's limits, so the example row passes them. */
const EXAMPLE_AMOUNT = '1500.00';

/**
 * The header of a payroll file for one provider (the base columns, then every recipient
 * parameter it takes, in its order) and one example row built from the live provider
 * details and the format table, so that importing the template unchanged gives no error.
 */
export function templateRows(code: ProviderCode, info: ProviderInfo): string[][] {
  const currency = Object.keys(info.amountLimits)[0] ?? 'RUB';
  const limit = info.amountLimits[currency as keyof ProviderInfo['amountLimits']];
  const amount =
    limit === undefined ||
    (toMinorUnits(EXAMPLE_AMOUNT) >= toMinorUnits(limit.min) && toMinorUnits(EXAMPLE_AMOUNT) <= toMinorUnits(limit.max))
      ? EXAMPLE_AMOUNT
      : limit.min;
  const base: Record<(typeof baseColumns)[number], string> = { reference: 'EXAMPLE-001', provider: code, amount, currency };
  const parameters = info.parameters.map((parameter) => {
    const example = formatOf(parameter, code).example;
    // A parameter this gateway has no example for: any text passes where there is no pattern.
    return [parameter.extKey, example ?? (parameter.validationPattern === undefined ? 'example' : '')] as const;
  });
  return [
    [...baseColumns, ...parameters.map(([key]) => key)],
    [...baseColumns.map((column) => base[column]), ...parameters.map(([, value]) => value)],
  ];
}

/** GET /templates/{providerCode}.csv (or .xlsx; `?format=` and `?locale=` as for exports), for any role. */
export async function handleTemplate(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: { client: PayoutClient; keys: ApiKeys },
): Promise<void> {
  // Each template reads the provider from the upstream: not for callers without a key.
  if (!(await allowGetWithKey(req, res, deps.keys))) return;
  const [, code, extension] = TEMPLATE.exec(path)!;
  if (!(providerCodes as readonly string[]).includes(code!)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`No provider ${code}; templates exist for ${providerCodes.join(', ')}.\n`);
    return;
  }
  const chosen = chooseFormat(extension!, new URL(req.url ?? '/', 'http://gateway').searchParams);
  if ('error' in chosen) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`${chosen.error}\n`);
    return;
  }
  let info: ProviderInfo;
  try {
    info = await deps.client.getProvider(code as ProviderCode);
  } catch (error) {
    if (!(error instanceof PayoutError)) throw error;
    res
      .writeHead(answerOf(error).httpStatus, { 'content-type': 'text/plain' })
      .end(`The provider details could not be read from the payout service (${error.code}); try again later.\n`);
    return;
  }
  const { format } = chosen;
  const chunks: Buffer[] = [];
  async function* rows() {
    yield* templateRows(code as ProviderCode, info);
  }
  for await (const chunk of exportChunks(rows(), format)) chunks.push(chunk);
  res.writeHead(200, {
    'content-type': exportMediaTypes[format],
    'content-disposition': `attachment; filename="payroll-template-${code}${format === 'xlsx' ? '.xlsx' : format === 'excel' ? '-excel.csv' : '.csv'}"`,
  });
  // Plain CSV gets a BOM too: a template is opened in a spreadsheet first.
  if (format === 'csv') res.write('\uFEFF');
  res.end(Buffer.concat(chunks));
}
