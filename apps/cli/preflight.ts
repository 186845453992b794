/**
 * What `joinlab join` (and `joinlab sort`) checks before it reads a byte of data: everything that would otherwise be
 * found only after the join ran (an output directory that does not exist), or never (a result
 * written over its own input), or that would hang the process (a FIFO as an input).
 *
 * In order:
 * 1. flags that cannot go together: `--null-aware` with `--null-equals-null` (NOT IN compares
 *    with `=`; SQL has no NOT IN variant with IS NOT DISTINCT FROM, so DuckDB has nothing to match
 *    and the second flag used to be silently ignored);
 * 2. every input path (`--left`, `--right`, `--config`) is a readable regular file;
 * 3. `--out`: its extension names a format joinlab writes, its directory exists and is writable,
 *    it is not an existing directory, FIFO or device — and it is not one of the inputs. "The same
 *    file" is decided by device + inode (`fs.stat` follows symbolic links, and a hard link shares
 *    the inode), so `./a.parquet`, `../dir/a.parquet`, a symlink to it or a hard link of it are all
 *    caught; writing there would replace the input with the result.
 */
import { stat } from 'node:fs/promises';
import { UsageError } from '../../core/errors.ts';
import { assertRegularFile } from '../../core/input-file.ts';
import { assertOutputFile } from '../../adapters/io/atomic.ts';
import { formatOf } from '../../adapters/io/index.ts';

export interface JoinPaths {
  readonly left: string;
  readonly right: string;
  readonly config?: string;
  readonly out?: string;
  readonly nullAware?: boolean;
  readonly nullEqualsNull?: boolean;
}

export async function preflightJoin(o: JoinPaths): Promise<void> {
  if (o.nullAware && o.nullEqualsNull) {
    throw new UsageError(
      '--null-aware (NOT IN) and --null-equals-null cannot be combined: NOT IN compares keys with =, and there is no NOT IN that uses IS NOT DISTINCT FROM; for "no match, NULL = NULL" use --type left-anti --null-equals-null',
    );
  }
  const inputs: [flag: string, path: string][] = [
    ['--left', o.left],
    ['--right', o.right],
  ];
  if (o.config !== undefined) inputs.push(['--config', o.config]);
  await preflightPaths(inputs, o.out);
}

export interface SortPaths {
  readonly input: string;
  readonly config?: string;
  readonly out?: string;
}

/** `joinlab sort INPUT [--config F] [--out F]`: the same checks (2 and 3) as the join's. */
export async function preflightSort(o: SortPaths): Promise<void> {
  const inputs: [flag: string, path: string][] = [['INPUT', o.input]];
  if (o.config !== undefined) inputs.push(['--config', o.config]);
  await preflightPaths(inputs, o.out);
}

/** Checks 2 and 3: each input a readable regular file, `out` writable, of a known format, and none of the inputs. */
async function preflightPaths(inputs: readonly [flag: string, path: string][], out: string | undefined): Promise<void> {
  for (const [flag, path] of inputs) await assertRegularFile(path, flag === '--config' ? 'config file' : flag === 'INPUT' ? 'input' : `${flag.slice(2)} input`);
  if (out === undefined) return;
  await assertOutputFile(out, `--out ${out}`);
  formatOf(out); // a UsageError listing the supported extensions
  const target = await stat(out).catch(() => null);
  if (target === null) return; // a new file cannot be an existing input
  for (const [flag, path] of inputs) {
    const st = await stat(path);
    if (st.dev === target.dev && st.ino === target.ino) {
      const what = flag === 'INPUT' ? `the input ${path}` : `${flag} ${path}`;
      throw new UsageError(`--out ${out} is the same file as ${what}: writing the result there would replace the input; choose another --out`);
    }
  }
}
