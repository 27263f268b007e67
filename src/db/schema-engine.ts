import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

type Bindings = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

let bindings: Promise<Bindings> | undefined;

/**
 * Timers the engine armed and has not seen fire. It arms a 10 s timeout around its work and
 * never clears it, which kept a process that had migrated alive for 10 s after it was done
 * (the first `payout` command in a new DATA_DIR); withSchemaEngine clears them once the
 * engine is freed. Migrations run one engine at a time per process.
 */
const engineTimers = new Set<ReturnType<typeof setTimeout>>();

function trackedSetTimeout(callback: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(() => {
    engineTimers.delete(timer);
    callback();
  }, ms >>> 0);
  engineTimers.add(timer);
  return timer;
}

/** The bindings as the wasm module's imports, with the engine's setTimeout tracked. */
function importsOf(bg: Bindings): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...bg };
  for (const name of Object.keys(imports)) if (name.startsWith('__wbg_setTimeout_')) imports[name] = trackedSetTimeout;
  return imports;
}

/** The slice of the WebAssembly global used here (@types/node 20 does not declare it). */
interface WasmApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The package's ESM entry imports its .wasm file directly, which Node cannot do, so the
 * module is instantiated here by hand (see docs/decisions/0001-one-schema-pglite-or-postgresql.md). Done once per process.
 */
function loadBindings(): Promise<Bindings> {
  bindings ??= (async () => {
    const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const require = createRequire(import.meta.url);
    const wasmFile = join(dirname(require.resolve('@prisma/schema-engine-wasm')), 'schema_engine_bg.wasm');
    const { instance } = await wasm.instantiate(await readFile(wasmFile), { './schema_engine_bg.js': importsOf(bg) });
    bg.__wbg_set_wasm(instance.exports as never);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg;
  })();
  return bindings;
}

/**
 * Runs `work` with a schema engine over the adapter, then closes every connection the
 * engine opened: freeing the engine alone leaves its session (and Prisma's migration
 * advisory lock) open, and the next engine would wait 10 s for that lock.
 */
export async function withSchemaEngine<T>(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  schema: { path: string; content: string },
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const bg = await loadBindings();
  const opened: SqlDriverAdapter[] = [];
  const track = async (connect: () => Promise<SqlDriverAdapter>) => {
    const connection = await connect();
    opened.push(connection);
    return connection;
  };
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    connect: () => track(() => adapter.connect()),
    connectToShadowDb: () => track(() => adapter.connectToShadowDb()),
  };
  const engine = await bg.SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    // The engine reports its own progress as JSON lines; nothing there is for users.
    () => {},
    bindMigrationAwareSqlAdapterFactory(tracking),
  );
  try {
    return await work(engine);
  } finally {
    engine.free();
    for (const timer of engineTimers) clearTimeout(timer);
    engineTimers.clear();
    // A connection the engine already closed may refuse a second close; that is fine.
    await Promise.allSettled(opened.map((connection) => connection.dispose()));
  }
}
