import {
  Binary,
  Bool,
  Decimal,
  Dictionary,
  Float64,
  Field,
  Int32,
  Int64,
  LargeUtf8,
  makeData,
  makeVector,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Timestamp,
  TimeUnit,
  Utf8,
  vectorFromArray,
  Vector,
  type Data,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { CancelledError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { ProjectedScan } from '../../core/scan/projected-scan.ts';
import { projectBatch, takeRows } from '../../core/scan/batch-shape.ts';
import { MemoryScan, sortedTable } from './memory-scan.ts';
import { betweenPredicate } from '../../core/scan/fixtures/between-predicate.ts';
import { DynamicFilter } from '../../core/scan/scan.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';

const between = betweenPredicate;

/** A table of `batches` record batches of `size` rows, k = 0..n-1 ascending. */
function tableOf(batches: number, size: number): Table {
  const parts: RecordBatch[] = [];
  for (let b = 0; b < batches; b++) {
    const k = Int32Array.from({ length: size }, (_, i) => b * size + i);
    const t = new Table({
      k: makeVector(k),
      v: makeVector(Float64Array.from(k, (x) => x * 1.5)),
      s: vectorFromArray(Array.from(k, (x) => `s${x}`), new Utf8()),
    });
    parts.push(...t.batches);
  }
  return new Table(parts);
}

async function collect(it: AsyncIterable<RecordBatch>): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
}

function column(batches: RecordBatch[], name: string): unknown[] {
  return batches.flatMap((b) => [...b.getChild(name)!]);
}

describe('MemoryScan', () => {
  it('without a filter passes every batch through, zero-copy', async () => {
    const t = tableOf(3, 10);
    const scan = new MemoryScan(t, 'probe');
    expect(scan.source).toBe('memory:probe');
    expect(scan.numRows).toBe(30);
    expect(scan.numContainers).toBe(3);
    const out = await collect(scan.batches());
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(t.batches[0]);
    expect(scan.metrics).toMatchObject({ containersTotal: 3, containersPruned: 0, rowsDecoded: 30, rowsAfterFilter: 30, bytesSkipped: 0 });
  });

  it('prunes exactly the batches outside the bounds, keeps overlapping ones; metrics add up', async () => {
    const t = tableOf(10, 100); // batch b holds k in [100b, 100b+99]
    const scan = new MemoryScan(t, 'probe');
    const filter = new DynamicFilter();
    const p = between('k', 250, 420); // overlaps batches 2, 3, 4
    filter.publish(p);
    const out = await collect(scan.batches({ filter, columns: ['s', 'k'] }));
    expect(p.tested).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const ks = column(out, 'k') as number[];
    expect(ks).toEqual(Array.from({ length: 171 }, (_, i) => 250 + i));
    expect(column(out, 's')).toEqual(ks.map((k) => `s${k}`));
    expect(out[0]!.schema.fields.map((f) => f.name)).toEqual(['s', 'k']);
    const m = scan.metrics;
    expect(m.containersTotal).toBe(10);
    expect(m.containersPruned).toBe(7);
    expect(m.rowsDecoded).toBe(300);
    expect(m.rowsAfterFilter).toBe(171);
    let kept = 0;
    let skipped = 0;
    t.batches.forEach((b, i) => {
      const z = zoneMapOf(b, i);
      const bytes = z.columnBytes('s') + z.columnBytes('k');
      if (i >= 2 && i <= 4) kept += bytes;
      else skipped += bytes;
    });
    expect(m.bytesDecoded).toBe(kept);
    expect(m.bytesSkipped).toBe(skipped);
    expect(m.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps containers that merely touch the bounds', async () => {
    const scan = new MemoryScan(tableOf(4, 10));
    const filter = new DynamicFilter();
    filter.publish(between('k', 19, 20));
    const out = await collect(scan.batches({ filter }));
    expect(column(out, 'k')).toEqual([19, 20]);
    expect(scan.metrics.containersPruned).toBe(2);
  });

  it('decodes predicate columns even when not requested, but does not emit them', async () => {
    const scan = new MemoryScan(tableOf(2, 10));
    const filter = new DynamicFilter();
    filter.publish(between('k', 3, 4));
    const out = await collect(scan.batches({ filter, columns: ['v'] }));
    expect(out[0]!.schema.fields.map((f) => f.name)).toEqual(['v']);
    expect(column(out, 'v')).toEqual([4.5, 6]);
  });

  it('honours a filter published after the first container', async () => {
    const scan = new MemoryScan(tableOf(5, 10));
    const filter = new DynamicFilter();
    const seen: number[][] = [];
    for await (const b of scan.batches({ filter })) {
      seen.push([...b.getChild('k')!] as number[]);
      if (seen.length === 1) filter.publish(between('k', 31, 33));
    }
    expect(seen).toEqual([Array.from({ length: 10 }, (_, i) => i), [31, 32, 33]]);
    expect(scan.metrics).toMatchObject({ containersTotal: 5, containersPruned: 3, rowsDecoded: 20, rowsAfterFilter: 13 });
  });

  it('skips empty results and counts NULL-only containers as prunable', async () => {
    const t = new Table({ k: vectorFromArray([null, null, 1, 2], new Int32()) });
    const scan = new MemoryScan(t);
    const filter = new DynamicFilter();
    filter.publish(between('k', 5, 6));
    expect(await collect(scan.batches({ filter }))).toEqual([]);
    expect(scan.metrics.containersPruned).toBe(1);
  });

  it('throws MissingColumnError for unknown requested or predicate columns', async () => {
    const scan = new MemoryScan(tableOf(1, 3), 't');
    await expect(collect(scan.batches({ columns: ['nope'] }))).rejects.toBeInstanceOf(MissingColumnError);
    const filter = new DynamicFilter();
    filter.publish(between('zz', 0, 1));
    await expect(collect(scan.batches({ filter }))).rejects.toThrow(/column 'zz' not found in memory:t/);
  });

  it('stops with CancelledError once the signal aborts', async () => {
    const scan = new MemoryScan(tableOf(5, 10), 'c');
    const ac = new AbortController();
    const seen: RecordBatch[] = [];
    await expect(
      (async () => {
        for await (const b of scan.batches({ signal: ac.signal })) {
          seen.push(b);
          ac.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(seen).toHaveLength(1);
  });
});

function bitmap(valid: boolean[]): Uint8Array {
  const bm = new Uint8Array((valid.length + 7) >> 3);
  valid.forEach((v, i) => {
    if (v) bm[i >> 3]! |= 1 << (i & 7);
  });
  return bm;
}

/** One column gathered through takeRows (the scan's row filter). */
function takeData(d: Data, idx: Int32Array): Data {
  const b = new Table({ c: makeVector(d) }).batches[0]!;
  return takeRows(b, idx).data.children[0]!;
}

describe('takeRows', () => {
  const n = 23;
  const valid = Array.from({ length: n }, (_, i) => i % 4 !== 1);
  const decWords = new Uint32Array(n * 4);
  for (let i = 0; i < n; i++) {
    let u = BigInt.asUintN(128, BigInt(i - 11) * 2n ** 70n + BigInt(i));
    for (let w = 0; w < 4; w++) {
      decWords[i * 4 + w] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  }
  const columns: Record<string, Data> = {
    i32: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? i * 3 - 20 : null)), new Int32()).data[0]!,
    i64: makeData({ type: new Int64(), length: n, nullCount: 0, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * -(2n ** 60n)) }),
    f64: vectorFromArray(Array.from({ length: n }, (_, i) => (i === 5 ? NaN : i === 6 ? -0 : i / 7)), new Float64()).data[0]!,
    bool: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? i % 3 === 0 : null)), new Bool()).data[0]!,
    utf8: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? 'x'.repeat(i) + '😀' : null)), new Utf8()).data[0]!,
    large: vectorFromArray(Array.from({ length: n }, (_, i) => `L${i}`), new LargeUtf8()).data[0]!,
    bin: vectorFromArray(Array.from({ length: n }, (_, i) => Uint8Array.from({ length: i % 5 }, (_, j) => i + j)), new Binary()).data[0]!,
    dict: vectorFromArray(Array.from({ length: n }, (_, i) => (valid[i] ? ['a', 'b', 'c'][i % 3]! : null)), new Dictionary(new Utf8(), new Int32())).data[0]!,
    dec: makeData({ type: new Decimal(3, 38, 128), length: n, nullCount: 0, data: decWords }),
    ts: makeData({
      type: new Timestamp(TimeUnit.NANOSECOND),
      length: n,
      nullCount: valid.filter((v) => !v).length,
      nullBitmap: bitmap(valid),
      data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_007n),
    }),
  };

  const idx = Int32Array.from([22, 0, 5, 6, 1, 13, 13, 9, 21]);
  /** List cells come back as Vectors; compare their values. */
  const norm = (v: unknown): unknown => (v instanceof Vector ? [...v] : v);

  for (const [name, data] of Object.entries(columns)) {
    it(`gathers ${name}`, () => {
      const got = makeVector(takeData(data, idx));
      const src = makeVector(data);
      expect(got.length).toBe(idx.length);
      expect(String(got.type)).toBe(String(src.type));
      for (let j = 0; j < idx.length; j++) expect(norm(got.get(j))).toEqual(norm(src.get(idx[j]!)));
    });

    it(`gathers ${name} from a sliced column`, () => {
      const sliced = data.slice(3, 15);
      const local = Int32Array.from([11, 0, 4, 5]);
      const got = makeVector(takeData(sliced, local));
      const src = makeVector(sliced);
      for (let j = 0; j < local.length; j++) expect(norm(got.get(j))).toEqual(norm(src.get(local[j]!)));
    });
  }

  it('keeps -0.0 and NaN bit patterns', () => {
    const got = makeVector(takeData(columns.f64!, Int32Array.from([6, 5])));
    expect(Object.is(got.get(0), -0)).toBe(true);
    expect(got.get(1)).toBeNaN();
  });

  it('takeRows and projectBatch build consistent batches', () => {
    const b = new Table({ a: makeVector(columns.i32!), b: makeVector(columns.utf8!) }).batches[0]!;
    const p = projectBatch(b, ['b', 'a']);
    expect(p.schema.fields.map((f) => f.name)).toEqual(['b', 'a']);
    expect(projectBatch(b, ['a', 'b'])).toBe(b);
    const t = takeRows(p, Int32Array.from([2, 4]));
    expect(t.numRows).toBe(2);
    expect(t.get(0)!.toJSON()).toEqual({ b: 'xx😀', a: -14 });
    expect(t.get(1)!.toJSON()).toEqual({ b: 'xxxx😀', a: -8 });
    expect(() => projectBatch(b, ['zz'], 'memory:x')).toThrow(MissingColumnError);
  });
});

describe('MemoryScan sortedOn', () => {
  const t = new Table({ k: makeVector(Int32Array.from([1, 2, 3])), s: vectorFromArray(['a', 'b', 'c'], new Utf8()), x: makeVector(Int32Array.from([0, 0, 0])) });

  it('is undefined unless declared', () => {
    expect(new MemoryScan(t).sortedOn).toBeUndefined();
    expect(new MemoryScan(t, 't', { sortedOn: [] }).sortedOn).toBeUndefined();
  });

  it('is the declared order with ASC NULLS LAST defaults, and a projection keeps its prefix', () => {
    const scan = new MemoryScan(t, 't', { sortedOn: [{ column: 'k' }, { column: 's', descending: true, nullsFirst: true }] });
    expect(scan.sortedOn).toEqual([
      { column: 'k', descending: false, nullsFirst: false },
      { column: 's', descending: true, nullsFirst: true },
    ]);
    expect(new ProjectedScan(scan, ['k', 'x']).sortedOn).toEqual([{ column: 'k', descending: false, nullsFirst: false }]);
    expect(sortedTable(t, [{ column: 'k' }], 'orders').sortedOn).toEqual([{ column: 'k', descending: false, nullsFirst: false }]);
    expect(sortedTable(t, [{ column: 'k' }], 'orders').source).toBe('memory:orders');
  });

  it('validates the declaration with typed errors', () => {
    expect(() => new MemoryScan(t, 't', { sortedOn: [{ column: 'nope' }] })).toThrow(MissingColumnError);
    expect(() => new MemoryScan(t, 't', { sortedOn: [{ column: 'nope' }] })).toThrow(/'nope' not found in memory:t \(sortedOn\)/);
    expect(() => new MemoryScan(t, 't', { sortedOn: [{ column: 'k' }, { column: 'k' }] })).toThrow(UsageError);
    const nested = new Table({ l: vectorFromArray([[1], [2]]) });
    expect(() => sortedTable(nested, [{ column: 'l' }])).toThrow(UnsupportedTypeError);
  });
});

describe('projectBatch with a repeated column name (issue 31)', () => {
  it('resolves each mention of a repeated name to its own column, in order', () => {
    const mk = (vals: number[]) => makeData({ type: new Int32(), length: vals.length, nullCount: 0, data: Int32Array.from(vals) });
    const schema = new Schema([new Field('a', new Int32()), new Field('b', new Int32()), new Field('b', new Int32())]);
    const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 2, nullCount: 0, children: [mk([4, 2]), mk([1, 2]), mk([3, 9])] }));
    const all = projectBatch(batch, ['a', 'b', 'b']);
    expect([0, 1, 2].map((i) => [...all.getChildAt(i)!])).toEqual([[4, 2], [1, 2], [3, 9]]);
    const swapped = projectBatch(batch, ['b', 'b', 'a']);
    expect([0, 1, 2].map((i) => [...swapped.getChildAt(i)!])).toEqual([[1, 2], [3, 9], [4, 2]]);
  });
});
