import { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config-error.ts';

/** The environment as this process sees it; only string values matter. */
export type Env = Record<string, string | undefined>;

/**
 * What the configuration reference says of a variable (docs/operations/configuration.md,
 * written by `npm run docs:config`): its default in words, and what it does. Markdown;
 * links are relative to docs/operations/.
 */
export interface VariableDoc {
  fallback: string;
  description: string;
}

/** A variable's schema with its entry in the configuration reference: the one place both live. */
export function documented<T extends z.ZodType>(schema: T, fallback: string, description: string): T {
  return schema.meta({ description, fallback });
}

/** The reference entry of each variable of an object schema, in the schema's order. */
export function variableDocs(schema: z.ZodObject): Array<{ name: string } & VariableDoc> {
  return Object.entries(schema.shape).map(([name, field]) => {
    const meta = z.globalRegistry.get(field as z.ZodType);
    if (typeof meta?.description !== 'string' || typeof meta.fallback !== 'string') {
      throw new Error(`${name} has no entry in the configuration reference: wrap its schema in documented()`);
    }
    return { name, fallback: meta.fallback, description: meta.description };
  });
}

export const emptyToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
export const optionalBoolean = z.preprocess(
  emptyToUndefined,
  z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
);

export const port = (fallback: number) => z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(fallback));

export const positiveInt = (fallback: number) => z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).default(fallback));

/** Hours above 0, fractions included (`0.5` is half an hour), as milliseconds. */
export const positiveHoursAsMs = (fallbackHours: number) => {
  const error = 'must be a number of hours above 0, such as 24 or 0.5';
  return z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error })
      .refine((hours) => Number.isFinite(hours) && hours > 0, { error })
      .default(fallbackHours)
      .transform((hours) => Math.round(hours * 3_600_000)),
  );
};

export const nonNegativeInt = (fallback: number) => z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).default(fallback));

export const httpUrl = z.preprocess(
  emptyToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

export const databaseUrl = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
);

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const logLevel = z.preprocess(
  emptyToUndefined,
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
);

export const rate = z.preprocess(emptyToUndefined, z.coerce.number().min(0).max(1).default(0));
export const decimalAmount = (fallback: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+\.\d{2}$/, 'must be an amount with two decimals, such as 1000.00')
      .default(fallback),
  );

/** Every problem of the environment at once (and `extra` found beside the schema), so one restart fixes everything. */
export function parseEnv<T extends z.ZodType>(schema: T, env: Env, extra: ConfigProblem[] = []): z.infer<T> {
  const result = schema.safeParse(env);
  const problems = [
    ...(result.error?.issues ?? []).map((issue) => ({
      variable: String(issue.path[0] ?? '(environment)'),
      message: issue.message,
    })),
    ...extra,
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return result.data;
}
