/** What a gather asks before it allocates an output buffer (core/arrow/gather.ts, row-layout.ts). */

/**
 * Refuses an allocation before it is made (a memory pool's `ensure`): the bytes of a
 * variable-width output column are known only once its rows are located, and one batch of long
 * strings can be larger than any limit.
 */
export interface AllocationGuard {
  ensure(bytes: number, consumer: string): void;
}
