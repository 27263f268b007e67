#!/usr/bin/env node
// The CLI is TypeScript run through tsx, like `npm start`; nothing is compiled ahead.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
