/**
 * A worker thread's main loop: load the engine's extensions into a registry of its own, then
 * serve requests — open a session of a registered `WorkerTask`, run inputs through it, close it.
 *
 * Requests are served one at a time, in arrival order: a `run` is synchronous work on typed
 * arrays (a morsel's probe), so nothing is gained by interleaving, and in-order service means a
 * `close` sent after a session's last `run` finds every run of it done. A session whose `open`
 * failed answers its runs with that error. Anything thrown becomes an `ErrorWire`
 * (errors.ts); the loop itself never dies of a task's error.
 */
import { parentPort } from 'node:worker_threads';
import { loadExtensions } from '../registry/extensions.ts';
import { Registry } from '../registry/registry.ts';
import { ALL_SLOTS, WORKER_TASK } from '../registry/slots.ts';
import { encodeError } from './errors.ts';
import type { InitMessage, Request, Response } from './protocol.ts';
import type { WorkerEnv, WorkerSession } from './task.ts';
// the row-test kinds core itself shares (a join's composed filter, conjunctions, renamed columns):
// registered at module load, so every predicate the main thread shares can be restored here
import '../pushdown/compose.ts';
import '../scan/filtered-scan.ts';
import '../scan/stacked-filter.ts';

const port = parentPort;
if (port === null) throw new Error('core/parallel/worker-main.ts runs only as a worker thread');

const sessions = new Map<number, Promise<WorkerSession>>();
let env: WorkerEnv | null = null;
let queue: Promise<void> = Promise.resolve();

const send = (m: Response, transfer?: readonly ArrayBuffer[]) => port.postMessage(m, transfer as ArrayBuffer[] | undefined);

async function init(m: InitMessage): Promise<void> {
  try {
    const registry = new Registry();
    for (const slot of ALL_SLOTS) registry.declareSlot(slot);
    await loadExtensions(registry, m.extensions, m.baseDir);
    env = { registry, workerIndex: m.workerIndex };
    send({ op: 'ready' });
  } catch (e) {
    send({ op: 'init-failed', error: encodeError(e) });
  }
}

async function serve(r: Request): Promise<void> {
  try {
    if (env === null) throw new Error('worker used before it was initialised');
    if (r.op === 'open') {
      const task = env.registry.resolve(WORKER_TASK, r.task);
      const opened = Promise.resolve().then(() => task.open(r.init, env!));
      sessions.set(r.session, opened);
      await opened;
      send({ op: 'done', id: r.id, value: null });
      return;
    }
    const session = sessions.get(r.session);
    if (session === undefined) throw new Error(`worker has no session ${r.session}`);
    if (r.op === 'close') sessions.delete(r.session);
    const s = await session;
    const out = r.op === 'run' ? await s.run(r.input) : await s.close();
    send({ op: 'done', id: r.id, value: out.value }, out.transfer);
  } catch (e) {
    send({ op: 'failed', id: r.id, error: encodeError(e) });
  }
}

port.on('message', (m: InitMessage | Request) => {
  if (m.op === 'init') {
    queue = queue.then(() => init(m));
    return;
  }
  queue = queue.then(() => serve(m));
});
