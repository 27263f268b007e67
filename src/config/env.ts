/**
 * The configuration's public face: the gateway's (gateway-config.ts, its variables in
 * gateway-env.ts) and the standalone sandbox's (sandbox-env.ts), parsed once with zod.
 * Every variable, its default and what it does: docs/operations/configuration.md.
 */
export { loadGatewayConfig, type GatewayConfig, type PayoutClientSettings } from './gateway-config.ts';
export { EMBEDDED_AGENT_ID, loadSandboxEnv, type SandboxEnv, type SandboxSettings } from './sandbox-env.ts';
export {
  DEFAULT_DUPLICATE_WINDOW_DAYS,
  DEFAULT_PERSISTED_OPERATIONS,
  defaultBreakerOptions,
  type BreakerOptions,
  type PersistedOperationSettings,
} from './gateway-env.ts';
export { roles, type Role } from './api-key-entries.ts';
export type { Env } from './zod-helpers.ts';
