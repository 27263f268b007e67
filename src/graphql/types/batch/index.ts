/*
 * The Batch type and every field, query, mutation and subscription about batches, one
 * file each by what it is about (batch.ts says which); imported only for what they add
 * to the builder.
 */
import './batch.ts';
import './progress.ts';
import './mutations.ts';
import './rows.ts';
import './money.ts';
import './payees.ts';
import './pause.ts';
import './schedule.ts';
import './actions.ts';
import './approvals.ts';
import './review.ts';
