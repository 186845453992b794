/**
 * The five questions of the h2o.ai db-benchmark join task, as each engine of the `h2o` suite asks
 * them: DuckDB's SQL is the benchmark's own (`duckdb/join-duckdb.R`: `CREATE TABLE ans AS …`,
 * then `SELECT SUM(v1), SUM(v2) FROM ans`); joinlab's is the same join through the library API
 * with the same output columns (`x.*` with the key once, then the right side's columns: joinlab
 * and Polars name the clashing ones `<name>_right` where DuckDB's SQL aliases them
 * `<table>_<name>`); Polars' is `x.join(rhs, { on, how })`.
 */
const X_COLUMNS = ['id1', 'id2', 'id3', 'id4', 'id5', 'id6', 'v1'];

export interface H2oQuestion {
  readonly name: string;
  readonly label: string;
  /** The right-hand table (the build side of a hash join: never larger than x). */
  readonly rhs: 'small' | 'medium' | 'big';
  readonly key: string;
  readonly type: 'inner' | 'left';
  /** The benchmark's DuckDB query (the SELECT of its `CREATE TABLE ans AS`). */
  readonly sql: string;
  /** joinlab's output columns (its names for the SQL's select list). */
  readonly select: readonly string[];
}

function question(name: string, label: string, rhs: H2oQuestion['rhs'], key: string, type: H2oQuestion['type'], right: readonly string[]): H2oQuestion {
  const aliases = right.map((c) => `${rhs}.${c} AS ${rhs}_${c}`).join(', ');
  const join = type === 'left' ? 'LEFT JOIN' : 'JOIN';
  return {
    name,
    label,
    rhs,
    key,
    type,
    sql: `SELECT x.*, ${aliases}, v2 FROM x ${join} ${rhs} USING (${key})`,
    select: [...X_COLUMNS, ...right.map((c) => `${c}_right`), 'v2'],
  };
}

export const H2O_QUESTIONS: readonly H2oQuestion[] = [
  question('q1', 'small inner on int', 'small', 'id1', 'inner', ['id4']),
  question('q2', 'medium inner on int', 'medium', 'id2', 'inner', ['id1', 'id4', 'id5']),
  question('q3', 'medium outer on int', 'medium', 'id2', 'left', ['id1', 'id4', 'id5']),
  question('q4', 'medium inner on factor', 'medium', 'id5', 'inner', ['id1', 'id2', 'id4']),
  question('q5', 'big inner on int', 'big', 'id3', 'inner', ['id1', 'id2', 'id4', 'id5', 'id6']),
];
