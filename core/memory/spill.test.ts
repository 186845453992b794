import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Dictionary,
  Float64,
  Int32,
  Int64,
  type RecordBatch,
  Table,
  Utf8,
  type Vector,
  type DataType,
  vectorFromArray,
} from 'apache-arrow';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from '../errors.ts';
import { newOperatorMetrics } from '../metrics.ts';
import { SpillManager } from './spill.ts';

const vec = (values: unknown[], type: DataType) => vectorFromArray(values as never[], type as never) as Vector;

function makeBatch(seed: number, rows: number): RecordBatch {
  const ints = Array.from({ length: rows }, (_, k) => (k % 4 === 3 ? null : seed * 1000 + k));
  const bigs = Array.from({ length: rows }, (_, k) => (k % 5 === 0 ? null : BigInt(seed) * 2n ** 40n + BigInt(k)));
  const strs = Array.from({ length: rows }, (_, k) => (k % 3 === 1 ? null : `s${seed}-${k}-ünï`));
  const cats = Array.from({ length: rows }, (_, k) => (k % 7 === 6 ? null : ['red', 'green', 'blue'][(k + seed) % 3]!));
  const dbl = Array.from({ length: rows }, (_, k) => (k === 0 ? NaN : k / 3));
  const t = new Table({
    i: vec(ints, new Int32()),
    b: vec(bigs, new Int64()),
    s: vec(strs, new Utf8()),
    c: vec(cats, new Dictionary(new Utf8(), new Int32())),
    d: vec(dbl, new Float64()),
  });
  return t.batches[0]!;
}

const rowsOf = (b: RecordBatch) => b.toArray().map((r) => JSON.stringify(r.toJSON(), (_k, v) => (typeof v === 'bigint' ? `${v}n` : Number.isNaN(v) ? 'NaN' : v)));

async function collect(it: AsyncIterable<RecordBatch>): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  for await (const b of it) out.push(b);
  return out;
}

const parent = mkdtempSync(path.join(os.tmpdir(), 'joinlab-spill-test-'));
const managers: SpillManager[] = [];
function manager(opts: ConstructorParameters<typeof SpillManager>[0] = {}) {
  const m = new SpillManager({ parentDir: parent, ...opts });
  managers.push(m);
  return m;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('SpillManager', () => {
  it('round-trips several batches (ints, int64, strings, dictionaries, NULLs, NaN)', async () => {
    const m = manager();
    const batches = [makeBatch(1, 10), makeBatch(2, 1), makeBatch(3, 257), makeBatch(4, 0)];
    const file = await m.spill(batches, batches[0]!.schema);
    expect(file.batches).toBe(4);
    expect(file.rows).toBe(268);
    expect(file.bytes).toBe((await fs.stat(file.path)).size);
    const back = await collect(m.read(file));
    expect(back.map((b) => b.numRows)).toEqual([10, 1, 257, 0]);
    for (let k = 0; k < batches.length; k++) {
      expect(back[k]!.schema.fields.map(String)).toEqual(batches[k]!.schema.fields.map(String));
      expect(rowsOf(back[k]!)).toEqual(rowsOf(batches[k]!));
    }
    // a file can be read more than once
    expect((await collect(m.read(file))).length).toBe(4);
  });

  it('spills from an async iterable, one batch at a time, and counts metrics', async () => {
    const metrics = newOperatorMetrics('smj');
    const m = manager({ metrics });
    const schema = makeBatch(0, 1).schema;
    let produced = 0;
    async function* source() {
      for (let k = 0; k < 5; k++) {
        produced++;
        yield makeBatch(k, 100);
      }
    }
    const f1 = await m.spill(source(), schema);
    const f2 = await m.spill([], schema);
    expect(produced).toBe(5);
    expect(metrics.spillFiles).toBe(2);
    expect(metrics.spilledBytes).toBe(f1.bytes + f2.bytes);
    expect(m.metrics).toBe(metrics);
    expect(await collect(m.read(f2))).toEqual([]);
    const back = await collect(m.read(f1));
    expect(back.map((b) => rowsOf(b)[7])).toEqual([0, 1, 2, 3, 4].map((k) => rowsOf(makeBatch(k, 100))[7]));
  });

  it('a writer appends batch by batch to one file, growing it, and abort removes it', async () => {
    const m = manager();
    const schema = makeBatch(0, 1).schema;
    const w = m.writer(schema);
    const sizes: number[] = [];
    for (let k = 0; k < 3; k++) {
      await w.append(makeBatch(k, 50));
      sizes.push(readdirSync(m.directory!).map((f) => existsSync(path.join(m.directory!, f))).length);
    }
    expect(sizes).toEqual([1, 1, 1]); // one file, appended to, never a second
    const file = await w.finish();
    expect(file.batches).toBe(3);
    expect(file.rows).toBe(150);
    expect(file.bytes).toBe((await fs.stat(file.path)).size);
    expect((await collect(m.read(file))).map((b) => rowsOf(b)[3])).toEqual([0, 1, 2].map((k) => rowsOf(makeBatch(k, 50))[3]));
    await expect(w.append(makeBatch(9, 1))).rejects.toThrow(/finished/);
    const dropped = m.writer(schema);
    await dropped.append(makeBatch(5, 5));
    await dropped.abort();
    expect(readdirSync(m.directory!)).toEqual([path.basename(file.path)]);
    await m.delete(file);
    expect(readdirSync(m.directory!)).toEqual([]);
    await m.writer(schema).abort(); // never opened: nothing to remove
  });

  it('creates its directory lazily and removes every file on close (idempotent)', async () => {
    const m = manager();
    expect(m.directory).toBeNull();
    const schema = makeBatch(0, 1).schema;
    const f1 = await m.spill([makeBatch(1, 5)], schema);
    const f2 = await m.spill([makeBatch(2, 5)], schema);
    const dir = m.directory!;
    expect(path.basename(dir)).toMatch(new RegExp(`^joinlab-spill-${process.pid}-`));
    expect(readdirSync(dir).sort()).toEqual([path.basename(f1.path), path.basename(f2.path)].sort());
    await m.delete(f1);
    await m.delete(f1);
    expect(existsSync(f1.path)).toBe(false);
    await expect(collect(m.read(f1))).rejects.toThrow(/not live/);
    await m.close();
    expect(existsSync(dir)).toBe(false);
    await m.close();
    await expect(m.spill([], schema)).rejects.toThrow(/closed/);
    await expect(collect(m.read(f2))).rejects.toThrow(/not live/);
  });

  it('close waits for a spill in flight', async () => {
    const m = manager();
    const schema = makeBatch(0, 1).schema;
    async function* slow() {
      await new Promise((r) => setTimeout(r, 30));
      yield makeBatch(1, 10);
    }
    // closed at once: before the spill has even made its directory (it once failed there under load)
    const pending = m.spill(slow(), schema);
    await m.close();
    const f = await pending;
    expect(f.batches).toBe(1);
    expect(m.directory).toBeNull();
    expect(existsSync(f.path)).toBe(false);
  });

  it('a failed spill removes its partial file', async () => {
    const m = manager();
    const schema = makeBatch(0, 1).schema;
    async function* failing() {
      yield makeBatch(1, 10);
      throw new Error('source broke');
    }
    await expect(m.spill(failing(), schema)).rejects.toThrow('source broke');
    expect(readdirSync(m.directory!)).toEqual([]);
    const other = new Table({ z: vec([1], new Int32()) }).batches[0]!;
    await expect(m.spill([makeBatch(1, 2), other], schema)).rejects.toThrow(/differs from the stream's schema/);
    expect(readdirSync(m.directory!)).toEqual([]);
  });

  it('truncated, corrupt or missing files raise typed errors', async () => {
    const m = manager();
    const schema = makeBatch(0, 1).schema;
    const batches = [makeBatch(1, 50), makeBatch(2, 50), makeBatch(3, 50)];

    const truncated = await m.spill(batches, schema);
    await fs.truncate(truncated.path, Math.floor(truncated.bytes / 2));
    const e1 = await collect(m.read(truncated)).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(CorruptFileError);
    expect((e1 as Error).message).toMatch(/^cannot read .*spill-.*: spill file is \d+ bytes, expected \d+ \(truncated/);

    const garbage = await m.spill(batches, schema);
    const h = await fs.open(garbage.path, 'r+');
    await h.write(new Uint8Array(garbage.bytes).fill(0xab), 0, garbage.bytes, 0);
    await h.close();
    await expect(collect(m.read(garbage))).rejects.toThrow(CorruptFileError);

    // same size, but the stream ends early (end-of-stream marker over the second batch)
    const early = await m.spill(batches, schema);
    const firstOnly = await m.spill([batches[0]!], schema);
    const bytes = await fs.readFile(firstOnly.path);
    const h2 = await fs.open(early.path, 'r+');
    await h2.write(bytes, 0, bytes.length, 0);
    await h2.close();
    const e3 = await collect(m.read(early)).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(CorruptFileError);

    const gone = await m.spill(batches, schema);
    await fs.rm(gone.path);
    await expect(collect(m.read(gone))).rejects.toThrow(FileNotFoundError);
  });

  it('removes leftover directories when the process exits without close()', () => {
    const spillUrl = new URL('./spill.ts', import.meta.url).href;
    const arrowUrl = import.meta.resolve('apache-arrow');
    const script = `
      const { SpillManager } = await import(${JSON.stringify(spillUrl)});
      const { tableFromArrays } = await import(${JSON.stringify(arrowUrl)});
      const t = tableFromArrays({ a: Int32Array.of(1, 2, 3) });
      const m = new SpillManager({ parentDir: ${JSON.stringify(parent)} });
      const f = await m.spill(t.batches, t.schema);
      console.log(m.directory);
      process.exit(0);
    `;
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(res.stderr).toBe('');
    const dir = res.stdout.trim();
    expect(dir.startsWith(parent)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });
});
