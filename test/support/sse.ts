import { request } from 'undici';

/**
 * A GraphQL subscription over Server-Sent Events, read event by event. `values` gets
 * `pick(data)` of each event; `first` resolves on the first event (the subscription is
 * attached from then on), `done` once `until(values)` holds or the stream ends.
 */
export async function subscribeSse(
  url: string,
  headers: Record<string, string>,
  query: string,
  pick: (data: any) => string,
  until: (values: string[]) => boolean,
) {
  const stream = await request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query }),
  });
  const values: string[] = [];
  let attached: () => void = () => {};
  const first = new Promise<void>((resolve) => (attached = resolve));
  const done = (async () => {
    let buffer = '';
    for await (const chunk of stream.body) {
      buffer += chunk.toString();
      const events = buffer.split('\n\n');
      buffer = events.pop()!;
      for (const event of events) {
        const data = event.split('\n').find((line) => line.startsWith('data:'));
        if (data === undefined || !event.includes('event: next')) continue;
        values.push(pick(JSON.parse(data.slice(5)).data));
        attached();
      }
      if (until(values)) break;
    }
    attached();
    stream.body.destroy();
  })();
  return { statusCode: stream.statusCode, values, first, done };
}
