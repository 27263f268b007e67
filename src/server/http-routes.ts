import { isBatchDownload } from './batch-downloads.ts';
import { isReconciliationDownload } from './reconciliation-downloads.ts';
import { isTemplate } from './templates.ts';
import { isWebPage } from './web-page.ts';
import { isMetricsPath } from './metrics-http.ts';
import { isSignInPath } from './sign-in-routes.ts';

/**
 * The gateway's route for a path, as a metric label and a span name: templates, never the
 * path itself (ids, file names, a scanner's guesses), so the label has as many values as
 * the gateway has routes. "other" is everything the gateway answers 404.
 */
export function gatewayRouteOf(path: string): string {
  if (path === '/graphql') return '/graphql';
  if (path === '/webhooks/payout') return '/webhooks/payout';
  if (path === '/healthz' || path === '/readyz') return path;
  if (isMetricsPath(path)) return '/metrics';
  if (isBatchDownload(path)) return path.includes('/problems.') ? '/batches/{id}/problems' : '/batches/{id}/results';
  if (isReconciliationDownload(path)) return '/reconciliations/{id}/discrepancies';
  if (isTemplate(path)) return '/templates/{provider}';
  if (path.startsWith('/assets/')) return '/assets/{file}';
  if (isSignInPath(path)) return path;
  if (isWebPage(path)) return path === '/favicon.svg' ? '/favicon.svg' : '/';
  return 'other';
}
