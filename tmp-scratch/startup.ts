import { BUILTIN_EXTENSIONS } from '../composition.ts';
import { WorkerPool } from '../core/parallel/worker-pool.ts';
const t = performance.now();
const pool = WorkerPool.get(2, BUILTIN_EXTENSIONS, process.cwd());
await pool.ready();
console.log('ready in', (performance.now() - t).toFixed(0), 'ms');
await WorkerPool.closeAll();
