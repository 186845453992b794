/**
 * The built-in demo data set: `orders` (left) and `customers` (right), seeded and small.
 *
 * Built to exercise the semantics rather than to look realistic: order customer ids are Int32
 * while customer ids are Int64 (the join must widen), ~5% of order keys are NULL and some
 * customers have NULL credit, a few hot customers take a third of the orders (duplicates and
 * skew), some orders reference customers that do not exist, and `status` is dictionary-encoded.
 */
import { Dictionary, Float64, Int32, Int64, Table, Utf8, makeData, makeVector, vectorFromArray, type Vector } from 'apache-arrow';
import { Rng } from '../../core/random.ts';

function validityBitmap(valid: Uint8Array): { bitmap: Uint8Array; nullCount: number } {
  const bitmap = new Uint8Array((valid.length + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < valid.length; i++) {
    if (valid[i]) bitmap[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
  }
  return { bitmap, nullCount };
}

function nullableInt32(values: Int32Array, valid: Uint8Array): Vector {
  const { bitmap, nullCount } = validityBitmap(valid);
  return makeVector(makeData({ type: new Int32(), length: values.length, nullCount, nullBitmap: nullCount ? bitmap : null, data: values }));
}

function nullableFloat64(values: Float64Array, valid: Uint8Array): Vector {
  const { bitmap, nullCount } = validityBitmap(valid);
  return makeVector(makeData({ type: new Float64(), length: values.length, nullCount, nullBitmap: nullCount ? bitmap : null, data: values }));
}

export interface DemoData {
  readonly orders: Table;
  readonly customers: Table;
}

export function demoData(orderRows: number, seed: number): DemoData {
  const rng = new Rng(seed);
  const customerRows = Math.max(1, Math.floor(orderRows / 4));
  const regions = ['north', 'south', 'east', 'west', 'überseeisch'];
  const statuses = ['open', 'paid', 'shipped', 'returned'];

  const custId = new BigInt64Array(customerRows);
  const credit = new Float64Array(customerRows);
  const creditValid = new Uint8Array(customerRows);
  const names: string[] = [];
  const region: (string | null)[] = [];
  for (let i = 0; i < customerRows; i++) {
    custId[i] = BigInt(i * 2); // only even ids exist
    credit[i] = Math.round(rng.next() * 1000 * 100) / 100;
    creditValid[i] = rng.chance(0.9) ? 1 : 0;
    names.push(`customer-${i}`);
    region.push(rng.chance(0.1) ? null : rng.pick(regions));
  }

  const orderId = new BigInt64Array(orderRows);
  const orderCust = new Int32Array(orderRows);
  const orderCustValid = new Uint8Array(orderRows);
  const amount = new Float64Array(orderRows);
  const amountValid = new Uint8Array(orderRows).fill(1);
  const statusCodes = new Int32Array(orderRows);
  const hot = Math.min(5, customerRows);
  for (let i = 0; i < orderRows; i++) {
    orderId[i] = BigInt(1_000_000 + i);
    // A third of orders go to a few hot customers; ids run past the last customer (no match).
    orderCust[i] = rng.chance(0.33) ? rng.int(0, hot - 1) * 2 : rng.int(0, Math.floor(customerRows * 2.2));
    orderCustValid[i] = rng.chance(0.05) ? 0 : 1;
    amount[i] = Math.round(rng.next() * 1200 * 100) / 100;
    statusCodes[i] = rng.int(0, statuses.length - 1);
  }
  const statusDict = vectorFromArray(statuses, new Utf8());
  const statusType = new Dictionary(new Utf8(), new Int32());
  const status = makeVector(makeData({ type: statusType, length: orderRows, nullCount: 0, data: statusCodes, dictionary: statusDict }));

  const orders = new Table({
    order_id: makeVector(orderId),
    customer_id: nullableInt32(orderCust, orderCustValid),
    amount: nullableFloat64(amount, amountValid),
    status,
  });
  const customers = new Table({
    customer_id: makeVector(makeData({ type: new Int64(), length: customerRows, nullCount: 0, data: custId })),
    name: vectorFromArray(names, new Utf8()),
    region: vectorFromArray(region, new Utf8()),
    credit: nullableFloat64(credit, creditValid),
  });
  return { orders, customers };
}
