/*
 * The Payment type (payment.ts) with its mutations, search and subscription, one file
 * each; imported only for what they add to the builder.
 */
import './payment.ts';
import './mutations.ts';
import './subscription.ts';
import './search.ts';
