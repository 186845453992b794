/**
 * `sip = dynamic` (the default): each join publishes its pushdown policy's filter into the scan
 * under its probe side (and, through the joins that pass the column unchanged, into the table
 * that produces it: adapters/sql/join-tree.ts). Filters travel sideways and down the tree from
 * one build at a time — DataFusion's and DuckDB's design, and joinlab's behaviour before `sip`.
 */
import { noTransfers, type SipStrategy } from '../../core/sip.ts';

export const dynamicSip: SipStrategy = {
  name: 'dynamic',
  description: "each join's pushdown policy into its probe scan (DataFusion's and DuckDB's dynamic filters; the default)",
  plan: () => noTransfers(true),
};
