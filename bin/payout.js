#!/usr/bin/env node
// The CLI as built to dist/ at install (npm run build): no TypeScript is compiled at run time.
process.setSourceMapsEnabled(true);
await import('../dist/payout.js');
