import type { Database } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { CallBudget, type BudgetSettings } from './call-budget.ts';
import { LocalBudgetStore } from './local-store.ts';
import { SharedBudgetStore } from './shared-store.ts';

/**
 * This process's side of the deployment's budget: shared through PostgreSQL when the
 * database is one several processes open, kept here on PGlite (one process holds it).
 */
export function openPartnerBudget(
  settings: BudgetSettings,
  deps: {
    db: Pick<Database, 'kind' | 'query'>;
    connectionString: string | undefined;
    agentId: string;
    logger: Logger;
    events?: EventTarget | undefined;
  },
): CallBudget {
  const shared = deps.db.kind === 'postgresql' && deps.connectionString !== undefined;
  const store = shared
    ? new SharedBudgetStore(settings, {
        connectionString: deps.connectionString!,
        query: deps.db.query,
        agentId: deps.agentId,
        logger: deps.logger,
        ...(deps.events === undefined ? {} : { events: deps.events }),
      })
    : new LocalBudgetStore(settings);
  return new CallBudget(settings, store);
}
