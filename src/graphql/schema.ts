import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/enums.ts';
import './types/errors.ts';
import './types/balance.ts';
import './types/me.ts';
import './types/provider.ts';
import './types/payment.ts';
import './types/payment-mutations.ts';
import './types/payment-subscription.ts';
import './types/payment-search.ts';
import './types/batch.ts';
import './types/batch-money.ts';
import './types/batch-pause.ts';
import './types/batch-review.ts';
import './types/audit.ts';
import './types/reconciliation.ts';

export const schema = builder.toSchema();
