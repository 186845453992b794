/**
 * `sip = none`: no runtime filter anywhere — not the joins' own dynamic filters either. The
 * baseline every other strategy is measured against: each scan reads its table with its static
 * predicate only, so what a filter saves elsewhere is measured against this.
 */
import { noTransfers, type SipStrategy } from '../../core/sip.ts';

export const noneSip: SipStrategy = {
  name: 'none',
  description: 'no runtime filter anywhere (the baseline): scans read with their static predicates only',
  plan: () => noTransfers(false),
};
