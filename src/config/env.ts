/**
 * The configuration's public face: the gateway's (gateway-config.ts, its variables in
 * gateway-env.ts, with its groups access-env.ts, worker-env.ts and events-env.ts) and the
 * standalone sandbox's (sandbox-env.ts), parsed once with zod.
 * Every variable, its default and what it does: docs/operations/configuration.md.
 */
export { loadGatewayConfig, type GatewayConfig, type PayoutClientSettings } from './gateway-config.ts';
export { EMBEDDED_AGENT_ID, loadSandboxEnv, type SandboxEnv, type SandboxSettings } from './sandbox-env.ts';
export { DEFAULT_DUPLICATE_WINDOW_DAYS } from './gateway-env.ts';
export { DEFAULT_PERSISTED_OPERATIONS, type PersistedOperationSettings } from './access-env.ts';
export { defaultBreakerOptions, type BreakerOptions } from './worker-env.ts';
export { roles, type Role } from './api-key-entries.ts';
export type { Env } from './zod-helpers.ts';
