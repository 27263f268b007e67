// Scratch (not committed): the same file again, re-sorted; a cancel mid-run; as a user would, with npm start.
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
const base = 'http://localhost:4078';
const gql = async (query) => (await (await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })).json());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
const page = await browser.newPage();
async function upload(file) {
  await page.goto(`${base}/#/upload`);
  await page.getByLabel('Choose a file').setInputFiles(file);
  const link = page.locator('.upload-result h2 a'); await link.waitFor({ timeout: 120000 });
  return (await link.getAttribute('href')).split('/').pop();
}
async function until(id, statuses) { for (;;) { const b = (await gql(`{ batch(id: "${id}") { status } }`)).data.batch; if (statuses.includes(b.status)) return b.status; await sleep(1000); } }
// 1. Pay a file, then upload it again re-sorted (by amount, descending) with ; instead of ,
const a = await upload('/tmp/ut/a.csv');
console.log('A', a, JSON.stringify(await gql(`mutation { approveBatch(id: "${a}") { __typename } }`)));
console.log('A ended', await until(a, ['COMPLETED', 'COMPLETED_WITH_FAILURES']));
const lines = readFileSync('/tmp/ut/a.csv', 'utf8').trim().split('\n');
const sorted = [lines[0], ...lines.slice(1).sort((x, y) => Number(y.split(',')[2]) - Number(x.split(',')[2]))].map((l) => l.replaceAll(',', ';'));
writeFileSync('/tmp/ut/a-resorted.csv', sorted.join('\n') + '\n');
const a2 = await upload('/tmp/ut/a-resorted.csv');
await page.goto(`${base}/#/batches/${a2}`); await sleep(2000);
await page.screenshot({ path: '/tmp/ut/resorted.png', fullPage: false });
console.log('A again', JSON.stringify((await gql(`{ batch(id: "${a2}") { status rowCount validCount flaggedCount flaggedAmount { value } } }`)).data));
console.log('approve A again', JSON.stringify(await gql(`mutation { approveBatch(id: "${a2}") { __typename ... on BatchError { code message } ... on ApproveBatchSuccess { batch { status } } } }`)));
await sleep(3000);
console.log('A again after', JSON.stringify((await gql(`{ batch(id: "${a2}") { status counts { status count } } }`)).data));
console.log('payments for R ref', JSON.stringify((await gql(`{ searchPayments(reference: "${lines[1].split(',')[0]}") { edges { node { paymentId status } } } }`))));
// 2. Cancel mid-run
const b = await upload('/tmp/ut/b.csv');
console.log('B', b, JSON.stringify(await gql(`mutation { approveBatch(id: "${b}") { __typename } }`)));
await sleep(3000);
console.log('cancel', JSON.stringify(await gql(`mutation { cancelBatch(id: "${b}") { __typename ... on BatchError { code message } } }`)));
await sleep(8000);
const items = (await gql(`{ batch(id: "${b}") { status counts { status count } items(first: 500, status: CANCELLED) { edges { node { paymentId cancelledAfterCreate { openUpstream expiresAt } } } } } }`)).data.batch;
const open = items.items.edges.filter((e) => e.node.cancelledAfterCreate !== null);
console.log('B after cancel', JSON.stringify(items.counts), items.status, 'created upstream, not executed:', open.length, JSON.stringify(open[0]?.node));
if (open[0]) console.log('execute one', JSON.stringify(await gql(`mutation { executePayment(paymentId: "${open[0].node.paymentId}") { __typename ... on PaymentRefusedError { code message } } }`)));
await page.goto(`${base}/#/batches/${b}`); await sleep(2000);
await page.screenshot({ path: '/tmp/ut/cancelled.png', fullPage: false });
await browser.close();
