// A receiver of payout-gateway's outbound events, as a company's HR or ERP side would write one.
//   EVENT_SECRET=whsec_… node samples/event-receiver.mjs        (listens on PORT, default 4100)
// Every delivery is verified with the Standard Webhooks library before anything is done with it.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.EVENT_SECRET;
if (!secret) {
  console.error('Set EVENT_SECRET to the secret `payout events subscribe` printed.');
  process.exit(2);
}
const webhook = new Webhook(secret);
const seen = new Set(); // event ids already acted on: a retry or replay is taken once
let lastSequence = 0;

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let message;
    try {
      message = webhook.verify(body, req.headers); // checks webhook-signature and webhook-timestamp
    } catch {
      res.writeHead(400).end('bad signature');
      return;
    }
    // A subscription with --events-per-request above 1 sends lists: { type: 'event.list', events: [...] }.
    for (const event of message.type === 'event.list' ? message.events : [message]) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      // Sequences run 1, 2, 3… per subscription; a receiver that just started has seen none of them.
      const gap =
        lastSequence === 0 || event.sequence === lastSequence + 1
          ? ''
          : event.sequence <= lastSequence
            ? `  (sequence ${event.sequence} after ${lastSequence}: sent again, by a replay or resend)`
            : `  (sequences ${lastSequence + 1}..${event.sequence - 1} not seen here)`;
      lastSequence = Math.max(lastSequence, event.sequence);
      console.log(`#${event.sequence} ${event.type} ${JSON.stringify(event.data)}${gap}`);
    }
    res.writeHead(204).end(); // any 2xx: delivered
  });
});
server.listen(Number(process.env.PORT ?? 4100), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
