#!/usr/bin/env node
// The `joinlab` command. The sources are TypeScript; tsx's loader compiles them on import so a
// checkout runs without a build step (`npx joinlab …`). `signals: true`: SIGINT/SIGTERM stop the
// run, remove its temporary files and exit 130/143 (apps/cli/interrupt.ts).
//
// Until main installs its handlers, a SIGINT/SIGTERM (loading the sources takes a second or two,
// more on a cold tsx cache) ends the process with the same code and a line that says so: nothing
// has been written yet. (Node's default would end it silently, killed by the signal.)
const early = (sig) => {
  process.stderr.write(`joinlab: interrupted (${sig}) while starting, nothing written\n`);
  process.exit(sig === 'SIGINT' ? 130 : 143);
};
process.on('SIGINT', early);
process.on('SIGTERM', early);
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../apps/cli/main.ts');
// main installs its own handlers synchronously, before its first await, so the early ones come off
// only once main's are on: removing a signal's last listener restores the default action (a silent
// death by the signal), so the other order left a window in which a signal went unreported.
const run = main(process.argv.slice(2), { signals: true });
process.off('SIGINT', early);
process.off('SIGTERM', early);
process.exitCode = await run;
