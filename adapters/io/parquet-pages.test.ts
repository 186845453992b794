import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int32, makeVector, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../duckdb/session.ts';
import { betweenPredicate } from '../../core/scan/fixtures/between-predicate.ts';
import { DynamicFilter, type ScanPredicate } from '../../core/scan/scan.ts';
import { parquetDecoder, type ParquetMorsel } from './parquet-decoder.ts';
import { footerTail } from './parquet-footer.ts';
import { intersectRanges, keptRowRanges, selectPages } from './parquet-page-select.ts';
import { parseOffsetIndex } from './parquet-page-index.ts';
import { ParquetScan } from './parquet-scan.ts';
import { writeParquetFile, type ParquetWriteOptions } from './parquet-write.ts';
import { T_I32, T_I64, ThriftReader, ThriftWriter, ti64, tget, tlist, twith, type TStruct } from './thrift.ts';

const between = betweenPredicate;

async function scanRows(path: string, predicate: ScanPredicate, options: { pageIndex?: 'auto' | 'off'; columns?: string[] } = {}) {
  const scan = await ParquetScan.open(path, { pageIndex: options.pageIndex ?? 'auto' });
  const filter = new DynamicFilter();
  filter.publish(predicate);
  const rows: unknown[][] = [];
  for await (const b of scan.batches({ filter, columns: options.columns ?? ['k', 'p', 's'] })) {
    for (let i = 0; i < b.numRows; i++) rows.push(b.schema.fields.map((f) => b.getChild(f.name)!.get(i)));
  }
  return { rows, metrics: scan.metrics, fallbacks: scan.handle.pageFallbackDecodes };
}

const N = 4000;
let dir: string;
/** k = i (sorted), p = N - i, s = strings of growing length: pages of the three columns end at different rows. */
let sorted: string;
/** The same, dictionary-encoded (each chunk starts with a dictionary page the page reads copy). */
let sortedDict: string;

function table(n: number): Table {
  const k = Int32Array.from({ length: n }, (_, i) => i);
  return new Table({
    k: makeVector(k),
    p: vectorFromArray(Array.from(k, (i) => (i % 97 === 0 ? null : n - i)), new Int32()),
    s: vectorFromArray(Array.from(k, (i) => `s${i}`.padEnd(1 + (i % 23), '.')), new Utf8()),
  });
}

const SMALL_PAGES: ParquetWriteOptions = { rowGroupSize: 2000, dataPageBytes: 256, writeBatchRows: 16, dictionary: false };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-pages-'));
  sorted = join(dir, 'sorted.parquet');
  await writeParquetFile(sorted, table(N), SMALL_PAGES);
  sortedDict = join(dir, 'sorted-dict.parquet');
  await writeParquetFile(sortedDict, table(N), { ...SMALL_PAGES, dictionary: true, dataPageBytes: 64 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('page selection', () => {
  it('intersects row ranges and selects the pages overlapping them', () => {
    expect(intersectRanges([0, 10, 20, 30], [5, 25])).toEqual([5, 10, 20, 25]);
    expect(intersectRanges([0, 10], [10, 20])).toEqual([]);
    const layout = parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [110, 10, 5], [120, 10, 9]]), 12, 100, 30, 100, 300)!;
    expect(layout.numPages).toBe(3);
    expect([...selectPages(layout, [5, 6])]).toEqual([0, 1, 0]);
    expect([...selectPages(layout, [4, 10])]).toEqual([1, 1, 1]);
    expect([...selectPages(layout, [11, 12])]).toEqual([0, 0, 1]);
  });

  it('refuses an offset index that does not fit its chunk or its rows', () => {
    const ok: Array<[number, number, number]> = [[100, 10, 0], [110, 10, 5]];
    expect(parseOffsetIndex(offsetIndexBytes(ok), 12, 100, 20, 100, 0)).not.toBeNull();
    expect(parseOffsetIndex(offsetIndexBytes([[100, 10, 1], [110, 10, 5]]), 12, 100, 20, 100, 0)).toBeNull(); // not from row 0
    expect(parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [110, 10, 0]]), 12, 100, 20, 100, 0)).toBeNull(); // rows do not increase
    expect(parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [105, 10, 5]]), 12, 100, 20, 100, 0)).toBeNull(); // pages overlap
    expect(parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [110, 11, 5]]), 12, 100, 20, 100, 0)).toBeNull(); // past the chunk
    expect(parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [110, 10, 12]]), 12, 100, 20, 100, 0)).toBeNull(); // past the rows
    expect(parseOffsetIndex(offsetIndexBytes(ok), 12, 100, 20, 110, 0)).toBeNull(); // data_page_offset after the first page
    expect(parseOffsetIndex(new Uint8Array([0xff, 0xff, 0xff]), 12, 100, 20, 100, 0)).toBeNull();
  });

  it('keeps the rows every predicate column may hold, pages asked one by one', () => {
    const layout = parseOffsetIndex(offsetIndexBytes([[100, 10, 0], [110, 10, 5], [120, 10, 9]]), 12, 100, 30, 100, 300)!;
    const index = { layout } as Parameters<typeof keptRowRanges>[2][number]['index'];
    const stats = [
      { min: 0, max: 4, nullCount: 0 },
      { min: 5, max: 8, nullCount: 0 },
      undefined, // unknown: kept
    ];
    const v = keptRowRanges(12, between('k', 6, 7), [{ name: 'k', index, stats }]);
    expect(v).toEqual({ ranges: [5, 12], pages: 3, pruned: 1 });
    const none = keptRowRanges(12, between('k', 100, 200), [{ name: 'k', index, stats: stats.slice(0, 2).concat([{ min: 9, max: 11, nullCount: 0 }]) }]);
    expect(none).toEqual({ ranges: [], pages: 3, pruned: 3 });
  });
});

describe('ParquetScan by pages', () => {
  it.each([
    ['plain', () => sorted],
    ['dictionary-encoded', () => sortedDict],
  ])('prunes pages on sorted data (%s): fewer rows decoded than by row groups, the same rows', async (name, file) => {
    const byPages = await scanRows(file(), between('k', 1234, 1300));
    const byGroups = await scanRows(file(), between('k', 1234, 1300), { pageIndex: 'off' });
    expect(byPages.rows).toEqual(byGroups.rows);
    expect(byPages.rows.map((r) => r[0])).toEqual(Array.from({ length: 67 }, (_, i) => 1234 + i));
    expect(byPages.metrics.pagesPruned).toBeGreaterThan(0);
    expect(byPages.metrics.pagesTotal).toBeGreaterThan(byPages.metrics.pagesPruned);
    expect(byPages.metrics.rowsDecoded).toBeLessThan(byGroups.metrics.rowsDecoded / 5);
    // bytes read include the page index and a probe of every page's header: with 16-row pages of
    // dictionary indices that is as much as the pages themselves
    if (name === 'plain') expect(byPages.metrics.bytesRead).toBeLessThan(byGroups.metrics.bytesRead);
    expect(byPages.metrics.bytesSkipped).toBeGreaterThan(byGroups.metrics.bytesSkipped);
    expect(byGroups.metrics.pagesTotal).toBe(0);
    expect(byPages.fallbacks).toBe(0);
  });

  it.each([
    ['plain', () => sorted],
    ['dictionary-encoded', () => sortedDict],
  ])('lines up columns whose pages end at different rows, over two predicate columns (%s)', async (_name, file) => {
    // k in [500, 1800] and p (= N - k, NULL every 97th row) in [2500, 3400]: k in [600, 1500]
    const both: ScanPredicate = {
      description: 'k and p',
      columns: ['k', 'p'],
      mayContain: (s) => between('k', 500, 1800).mayContain(s) && between('p', 2500, 3400).mayContain(s),
      selectRows: (b) => {
        const k = between('k', 500, 1800).selectRows(b)!;
        const p = new Set(between('p', 2500, 3400).selectRows(b)!);
        return Int32Array.from([...k].filter((i) => p.has(i)));
      },
    };
    const byPages = await scanRows(file(), both, { columns: ['s', 'p', 'k'] });
    const byGroups = await scanRows(file(), both, { pageIndex: 'off', columns: ['s', 'p', 'k'] });
    expect(byPages.rows).toEqual(byGroups.rows);
    const expected = Array.from({ length: 901 }, (_, i) => 600 + i).filter((k) => k % 97 !== 0);
    expect(byPages.rows.map((r) => r[2])).toEqual(expected);
    for (const [s, p, k] of byPages.rows) {
      expect(p).toBe(N - (k as number));
      expect((s as string).startsWith(`s${k}`)).toBe(true);
    }
    expect(byPages.metrics.pagesPruned).toBeGreaterThan(0);
    expect(byPages.metrics.rowsDecoded).toBeLessThan(byGroups.metrics.rowsDecoded);
    expect(byPages.fallbacks).toBe(0);
  });

  it.each([
    ['plain', () => sorted],
    ['dictionary-encoded', () => sortedDict],
  ])('lines up scattered kept pages (%s): an IN list over sorted keys', async (_name, file) => {
    const wanted = [3, 100, 101, 640, 900, 1500, 1999, 2000, 3100, 3999];
    const set = new Set(wanted);
    const inList: ScanPredicate = {
      description: 'k IN (…)',
      columns: ['k'],
      mayContain(stats) {
        const c = stats.column('k');
        if (!c || c.min === null || c.max === null) return true;
        return wanted.some((w) => w >= Number(c.min) && w <= Number(c.max));
      },
      selectRows(b) {
        const k = b.getChild('k')!;
        const out: number[] = [];
        for (let i = 0; i < b.numRows; i++) if (set.has(k.get(i) as number)) out.push(i);
        return Int32Array.from(out);
      },
    };
    const byPages = await scanRows(file(), inList, { columns: ['s', 'p', 'k'] });
    expect(byPages.rows.map((r) => r[2])).toEqual(wanted);
    for (const [s, p, k] of byPages.rows) {
      expect(p).toBe((k as number) % 97 === 0 ? null : N - (k as number));
      expect((s as string).startsWith(`s${k}`)).toBe(true);
    }
    expect(byPages.metrics.pagesPruned).toBeGreaterThan(byPages.metrics.pagesTotal / 2);
    expect(byPages.fallbacks).toBe(0);
  });

  it('prunes a row group whose every page is ruled out, though its min/max keep it', async () => {
    // no row passes; containers of a row group's size may (a "maybe" is always allowed), pages may not
    const gap: ScanPredicate = {
      description: 'nothing, said late',
      columns: ['k'],
      mayContain: (stats) => stats.numRows >= 2000,
      selectRows: () => new Int32Array(0),
    };
    const r = await scanRows(sorted, gap);
    expect(r.rows).toEqual([]);
    expect(r.metrics.containersPruned).toBe(2);
    expect(r.metrics.rowsDecoded).toBe(0);
  });

  it('all-NULL pages: ruled out by a range, kept by IS NULL; their bounds are never read', async () => {
    // arrow-rs pages: 20,480 rows (NULLs add no bytes); page 0 is all NULL (null_pages), page 1 half
    const path = join(dir, 'nulls.parquet');
    const n = 50_000;
    await writeParquetFile(path, new Table({ k: vectorFromArray(Array.from({ length: n }, (_, i) => (i < 25_000 ? null : i)), new Int32()) }));
    const range = await scanRows(path, between('k', 45_000, 45_010), { columns: ['k'] });
    expect(range.rows.map((r) => r[0])).toEqual(Array.from({ length: 11 }, (_, i) => 45_000 + i));
    expect(range.metrics).toMatchObject({ pagesTotal: 3, pagesPruned: 2, rowsDecoded: n - 40_960 });
    const isNull: ScanPredicate = {
      description: 'k IS NULL',
      columns: ['k'],
      mayContain: (s) => s.column('k')?.nullCount !== 0,
      selectRows: (b) => Int32Array.from(Array.from({ length: b.numRows }, (_, i) => i).filter((i) => b.getChild('k')!.get(i) === null)),
    };
    const nulls = await scanRows(path, isNull, { columns: ['k'] });
    expect(nulls.rows.length).toBe(25_000);
    expect(nulls.metrics).toMatchObject({ pagesTotal: 3, pagesPruned: 1, rowsDecoded: 40_960 });
  });

  it('a data page that does not decode is a CorruptFileError naming the column and row group', async () => {
    const path = join(dir, 'bad-page.parquet');
    const bytes = new Uint8Array(await readFile(sorted));
    const scan0 = await ParquetScan.open(sorted);
    const layout = scan0.handle.pageIndex(1, 's')!.layout;
    // the middle of a kept page's data (its header is left alone: the page index still checks out)
    const page = layout.firstRow.findIndex((f) => f > 1000) - 1; // row 1000 of row group 1: k = 3000
    const at = layout.offset[page]! + Math.floor(layout.size[page]! / 2);
    bytes.fill(0xff, at, Math.min(at + 24, layout.offset[page]! + layout.size[page]!));
    await writeFile(path, bytes);
    await expect(scanRows(path, between('k', 3000, 3010))).rejects.toThrow(/do not decode \(column 's' of row group 1\)/);
  });

  it('a worker decodes only the kept pages of a morsel', async () => {
    const scan = await ParquetScan.open(sorted);
    const filter = new DynamicFilter();
    filter.publish(between('k', 2100, 2110));
    const morsels = [];
    for await (const m of scan.morsels({ filter, columns: ['s', 'k'] })) morsels.push(m);
    expect(morsels.length).toBe(1);
    const d = (morsels[0] as { descriptor: ParquetMorsel; rows: number }).descriptor;
    expect(d.rows).toBeDefined();
    const batches = await parquetDecoder.decode(d, {});
    const ks = batches.flatMap((b) => [...b.getChild('k')!]);
    expect(ks.length).toBe((morsels[0] as { rows: number }).rows);
    expect(ks.length).toBeLessThan(2000);
    expect(ks).toContain(2105);
    for (const b of batches) expect(b.schema.fields.map((f) => f.name)).toEqual(['s', 'k']);
    expect(scan.metrics.pagesPruned).toBeGreaterThan(0);
  });

  it('reads a file without a page index, or without a column index, exactly as by row groups', async () => {
    const duck = await DuckDBSession.open({ threads: 1 });
    const noIndex = join(dir, 'duck.parquet');
    const chunkOnly = join(dir, 'chunk-stats.parquet');
    try {
      await duck.run(`COPY (SELECT i::INTEGER AS k, (${N} - i)::INTEGER AS p, 's' || i AS s FROM range(${N}) t(i)) TO '${noIndex}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
    } finally {
      await duck.close();
    }
    await writeParquetFile(chunkOnly, table(N), { ...SMALL_PAGES, statistics: 'chunk' });
    for (const path of [noIndex, chunkOnly]) {
      const byPages = await scanRows(path, between('k', 1234, 1300));
      const byGroups = await scanRows(path, between('k', 1234, 1300), { pageIndex: 'off' });
      expect(byPages.rows).toEqual(byGroups.rows);
      expect(byPages.rows.length).toBe(67);
      expect(byPages.metrics).toMatchObject({ pagesTotal: 0, pagesPruned: 0, rowsDecoded: byGroups.metrics.rowsDecoded });
    }
  });
});

/** An OffsetIndex of `[offset, size, firstRow]` pages, Thrift-encoded. */
function offsetIndexBytes(pages: ReadonlyArray<readonly [number, number, number]>): Uint8Array {
  const w = new ThriftWriter();
  const items: TStruct[] = pages.map(([o, s, f]) => [
    { id: 1, type: T_I64, value: BigInt(o) },
    { id: 2, type: T_I32, value: s },
    { id: 3, type: T_I64, value: BigInt(f) },
  ]);
  w.struct([{ id: 1, type: 9, value: { elemType: 12, items } }]);
  return w.bytes().slice();
}

/**
 * `bytes` (a Parquet file) with each chunk's page index replaced by what `edit` returns: new
 * index bytes are appended after the old ones, and the footer points at them (or, `at`, anywhere).
 */
function withPageIndex(
  bytes: Uint8Array,
  edit: (oi: Uint8Array, ci: Uint8Array, rowGroup: number, leaf: number) => { oi?: Uint8Array; ci?: Uint8Array; oiAt?: number; ciAt?: number },
): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(bytes.length - 8, true);
  const footerStart = bytes.length - 8 - len;
  const raw = new ThriftReader(bytes, footerStart, bytes.length - 8).struct();
  const blobs: Uint8Array[] = [];
  let at = footerStart;
  const rgs = (tlist(raw, 4)!.items as TStruct[]).map((rg, r) => {
    const cols = (tlist(rg, 1)!.items as TStruct[]).map((chunk, leaf) => {
      const oiOff = Number(ti64(chunk, 4));
      const ciOff = Number(ti64(chunk, 6));
      const oi = bytes.subarray(oiOff, oiOff + (tget(chunk, 5) as number));
      const ci = bytes.subarray(ciOff, ciOff + (tget(chunk, 7) as number));
      const e = edit(oi, ci, r, leaf);
      const place = (b: Uint8Array | undefined, fixed: number | undefined, off: number): number => {
        if (fixed !== undefined) return fixed;
        if (b === undefined) return off;
        blobs.push(b);
        at += b.length;
        return at - b.length;
      };
      const newOi = e.oi ?? oi;
      const newCi = e.ci ?? ci;
      return twith(chunk, [
        [4, T_I64, BigInt(place(e.oi, e.oiAt, oiOff))],
        [5, T_I32, newOi.length],
        [6, T_I64, BigInt(place(e.ci, e.ciAt, ciOff))],
        [7, T_I32, newCi.length],
      ]);
    });
    return twith(rg, [[1, 9, { elemType: 12, items: cols }]]);
  });
  const w = new ThriftWriter();
  w.struct(twith(raw, [[4, 9, { elemType: 12, items: rgs }]]));
  const tail = footerTail(w.bytes());
  const out = new Uint8Array(at + tail.length);
  out.set(bytes.subarray(0, footerStart));
  let pos = footerStart;
  for (const b of blobs) {
    out.set(b, pos);
    pos += b.length;
  }
  out.set(tail, pos);
  return out;
}

/** The OffsetIndex `oi` with page `page`'s first row moved by `by`. */
function shiftFirstRow(oi: Uint8Array, page: number, by: number): Uint8Array {
  const s = new ThriftReader(oi, 0, oi.length).struct();
  const locs = (tlist(s, 1)!.items as TStruct[]).map((l, i) => (i === page ? twith(l, [[3, T_I64, ti64(l, 3)! + BigInt(by)]]) : l));
  const w = new ThriftWriter();
  w.struct(twith(s, [[1, 9, { elemType: 12, items: locs }]]));
  return w.bytes().slice();
}

describe('a corrupt page index', () => {
  const cases: Array<[string, Parameters<typeof withPageIndex>[1]]> = [
    ['offset index outside the file', () => ({ oiAt: 1 << 30 })],
    ['offset index at a negative offset', () => ({ oiAt: -5 })],
    ['garbled offset index', (oi) => ({ oi: oi.map((b, i) => (i % 3 === 0 ? 0xff : b)) })],
    ['garbled column index', (_oi, ci) => ({ ci: ci.map((b, i) => (i % 2 === 0 ? 0x9c : b)) })],
    ['column index lists of the wrong length', (_oi, ci) => ({ ci: ci.subarray(0, Math.max(1, ci.length >> 1)) })],
    ['a first row moved by one (the page headers disagree)', (oi) => ({ oi: shiftFirstRow(oi, 3, 1) })],
    ['a first row moved by minus one', (oi) => ({ oi: shiftFirstRow(oi, 5, -1) })],
  ];
  it.each(cases)('%s: the chunk is read by row groups, never a dropped row', async (_name, edit) => {
    const original = await readFile(sorted);
    const path = join(dir, `corrupt-${Math.random().toString(36).slice(2)}.parquet`);
    await writeFile(path, withPageIndex(original, (oi, ci, r, leaf) => (leaf === 0 || leaf === 2 ? edit(oi, ci, r, leaf) : {})));
    const byPages = await scanRows(path, between('k', 1234, 1300));
    expect(byPages.rows.map((r) => r[0])).toEqual(Array.from({ length: 67 }, (_, i) => 1234 + i));
    for (const [k, p, s] of byPages.rows) {
      expect(p).toBe((k as number) % 97 === 0 ? null : N - (k as number));
      expect((s as string).startsWith(`s${k}`)).toBe(true);
    }
    expect(byPages.metrics.pagesPruned).toBe(0); // k's page index was not trusted
    expect(byPages.fallbacks).toBe(0); // ... and refused before any page was read by it
  });

  it('a corrupt page index of a column the predicate does not read still reads right', async () => {
    const original = await readFile(sorted);
    const path = join(dir, 'corrupt-payload.parquet');
    await writeFile(path, withPageIndex(original, (oi, _ci, _r, leaf) => (leaf === 2 ? { oi: shiftFirstRow(oi, 2, 1) } : leaf === 1 ? { oi: oi.map(() => 7) } : {})));
    const byPages = await scanRows(path, between('k', 1234, 1300));
    expect(byPages.rows.map((r) => r[0])).toEqual(Array.from({ length: 67 }, (_, i) => 1234 + i));
    for (const [k, p, s] of byPages.rows) {
      expect(p).toBe((k as number) % 97 === 0 ? null : N - (k as number));
      expect((s as string).startsWith(`s${k}`)).toBe(true);
    }
    expect(byPages.metrics.pagesPruned).toBeGreaterThan(0); // k's own index is fine
    expect(byPages.fallbacks).toBe(0);
  });
});
