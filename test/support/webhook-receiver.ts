import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  signature: string | undefined;
  contentType: string | undefined;
  body: any;
}

/** Collects webhook POSTs; answers 500 to the first `failFirst` of them. */
export async function startWebhookReceiver(options: { failFirst?: number; status?: number } = {}) {
  const received: ReceivedWebhook[] = [];
  let failuresLeft = options.failFirst ?? 0;
  let attempts = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      attempts++;
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(500).end('not now');
        return;
      }
      received.push({
        signature: req.headers.signature as string | undefined,
        contentType: req.headers['content-type'],
        body: JSON.parse(text),
      });
      res.writeHead(options.status ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
