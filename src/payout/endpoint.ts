/**
 * "GET /payments/{id}" for "GET /payments/p-1": the client's paths with their ids taken
 * out, so a metric label or a span name has as many values as the client has endpoints.
 */
export function endpointOf(method: string, path: string): string {
  const template = path
    .replace(/\?.*$/, '')
    .replace(/^\/payments\/[^/]+/, '/payments/{id}')
    .replace(/^\/providers\/[^/]+/, '/providers/{code}');
  return `${method} ${template}`;
}
