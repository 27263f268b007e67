import type { GatewayConfig } from '../config/env.ts';
import type { DatabaseTarget } from './database.ts';

export function databaseTarget(config: Pick<GatewayConfig, 'databaseUrl' | 'dataDir'>): DatabaseTarget {
  return config.databaseUrl === undefined ? { dataDir: config.dataDir } : { databaseUrl: config.databaseUrl };
}
