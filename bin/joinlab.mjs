#!/usr/bin/env node
// The `joinlab` command. The sources are TypeScript; tsx's loader compiles them on import so a
// checkout runs without a build step (`npx joinlab …`). `signals: true`: SIGINT/SIGTERM stop the
// run, remove its temporary files and exit 130/143 (apps/cli/interrupt.ts).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../apps/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), { signals: true });
