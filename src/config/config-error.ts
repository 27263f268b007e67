import { GatewayError } from '../lib/gateway-error.ts';

export interface ConfigProblem {
  variable: string;
  message: string;
}

/** Startup refusal that names every bad or missing variable at once. */
export class ConfigError extends GatewayError {
  readonly code = 'config.invalid';
  readonly kind = 'input';
  constructor(readonly problems: ConfigProblem[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
