/**
 * Which algorithm runs a bound join: the strategy a `join` name resolves to, or — when that
 * strategy is a planner (`JoinAlgorithm.choose`, e.g. `auto`) — the one it chooses for this join.
 *
 * One function, so the engine (checking and running a join), the random-case generator (asking
 * whether a case can run) and the demo all answer the same way. A planner may name another
 * planner; the chain is followed until an algorithm that runs joins itself, and a cycle is a
 * ConfigError. A chosen name that is not registered is an UnknownStrategyError naming the
 * planner (`chosenBy`): e.g. `auto` choosing `piecewise` in a registry without it.
 */
import { ConfigError, UnknownStrategyError } from './errors.ts';
import type { JoinAlgorithm } from './join-algorithm.ts';
import type { BoundJoin } from './plan.ts';
import type { Registry } from './registry/registry.ts';
import { JOIN } from './registry/slots.ts';

export interface JoinChoice {
  /** The algorithm that runs the join: never a planner. */
  readonly algorithm: JoinAlgorithm;
  /** The planner the `join` name resolved to, which chose `algorithm`; null when the name was the algorithm itself. */
  readonly chosenBy: string | null;
}

/** The algorithm that runs `join` when the config says `join: name`. */
export function chooseJoinAlgorithm(registry: Registry, name: string, join: BoundJoin): JoinChoice {
  let algorithm = registry.resolve(JOIN, name);
  const path = [name];
  while (algorithm.choose !== undefined) {
    const next = algorithm.choose(join);
    if (path.includes(next)) throw new ConfigError(`join planners choose each other in a cycle: ${[...path, next].join(' -> ')}`, 'join');
    if (!registry.has(JOIN, next)) throw new UnknownStrategyError(JOIN.name, next, registry.names(JOIN), algorithm.name);
    path.push(next);
    algorithm = registry.resolve(JOIN, next);
  }
  return { algorithm, chosenBy: path.length > 1 ? name : null };
}

/**
 * Why `join: name` cannot run `join` — the chosen algorithm's reason when `name` is a planner, or
 * that the planner chose an algorithm this registry does not have — or null when it can. Throws
 * only for an unknown `name` itself (or a planner cycle).
 */
export function joinUnsupportedReason(registry: Registry, name: string, join: BoundJoin): string | null {
  try {
    return chooseJoinAlgorithm(registry, name, join).algorithm.unsupportedReason(join);
  } catch (e) {
    if (e instanceof UnknownStrategyError && e.chosenBy !== undefined) return e.message;
    throw e;
  }
}
