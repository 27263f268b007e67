import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/enums.ts';
import './types/errors.ts';
import './types/balance.ts';
import './types/me.ts';
import './types/provider.ts';
import './types/payment/index.ts';
import './types/batch/index.ts';
import './types/audit.ts';
import './types/reconciliation.ts';
import './types/event-subscriptions.ts';
import './types/identities.ts';
import './types/api-keys.ts';

export const schema = builder.toSchema();
