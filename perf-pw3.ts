import * as arrow from 'apache-arrow';
import { Engine } from './composition.ts';
import { toJoinSpec } from './core/spec.ts';
const N = 100000, B = 100;
const bk = BigInt64Array.from({ length: B }, (_, i) => BigInt(1e9 + 10 * i));
const sk = BigInt64Array.from({ length: N }, (_, i) => BigInt(2e9 + i));
const buf = new arrow.Table({ k: arrow.makeVector(bk), lv: arrow.makeVector(BigInt64Array.from({ length: B }, (_, i) => BigInt(i))) });
const str = new arrow.Table({ k: arrow.makeVector(sk), rv: arrow.makeVector(BigInt64Array.from({ length: N }, (_, i) => BigInt(i))) });
const spec = toJoinSpec({ type: (process.argv[2] ?? 'inner') as any, range: 'l.k < r.k', select: 'lv,rv' });
const e = await Engine.create(process.argv[3] === 'base' ? { join: 'piecewise', 'pwmj.search': 'linear', 'pwmj.prefilter': false } : { join: 'piecewise' });
for (let it = 0; it < 5; it++) {
  const t = performance.now(); let n = 0;
  for await (const b of (await e.stream(spec, buf, str)).batches) n += b.numRows;
  console.log(n, (performance.now() - t).toFixed(1));
}
