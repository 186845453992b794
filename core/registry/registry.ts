/**
 * The strategy registry: a small facade over an inversify container.
 *
 * Every interchangeable piece of joinlab — join algorithm, pushdown policy, hash-map layout, SMJ
 * existence stream, PWMJ search — is bound into a named *slot* of the container as a constant
 * strategy object, and configuration picks one name per slot. Strategies are stateless factories:
 * anything with per-run state is created by the strategy from the run's context, so one registry
 * can serve concurrent joins.
 *
 * The container is the source of truth for resolution (`container.get(slot, { name })`); the
 * facade keeps a catalogue beside it only to list names and descriptions (inversify has no
 * "list the names bound to this id" call) and to turn a miss into an `UnknownStrategyError`
 * that lists what *is* registered.
 */
import { Container } from 'inversify';
import type { OwnedSettings, SettingsFragment } from '../config/settings.ts';
import { ConfigError, UnknownStrategyError } from '../errors.ts';

/** Anything a slot holds: a named, self-describing strategy. */
export interface Strategy {
  readonly name: string;
  readonly description: string;
}

/** A typed slot id: `Slot<JoinAlgorithm>` can only hold join algorithms. */
export interface Slot<T extends Strategy> {
  readonly id: symbol;
  readonly name: string;
  readonly description: string;
  /** Phantom field carrying `T`; never set. */
  readonly __type?: T;
}

export function defineSlot<T extends Strategy>(name: string, description: string): Slot<T> {
  return { id: Symbol.for(`joinlab.slot.${name}`), name, description };
}

export interface StrategyInfo {
  readonly slot: string;
  readonly name: string;
  readonly description: string;
  /** Name of the extension that registered it. */
  readonly extension: string;
}

export interface SlotInfo {
  readonly name: string;
  readonly description: string;
  readonly strategies: readonly StrategyInfo[];
}

export class Registry {
  readonly #container = new Container();
  readonly #slots = new Map<string, Slot<Strategy>>();
  readonly #catalogue = new Map<string, StrategyInfo[]>();
  /** Extension currently loading, recorded on each registration for `joinlab strategies`. */
  #loading = '(direct)';
  readonly #settings: OwnedSettings[] = [];

  /**
   * Records the config keys extension `owner` declares (core/config/settings.ts); the engine
   * validates its configuration against core's keys plus every fragment recorded here.
   */
  declareSettings(owner: string, settings: SettingsFragment): void {
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
      throw new ConfigError(`extension '${owner}': 'settings' must be an object of { key: { schema, default, description } }`, 'extensions');
    }
    this.#settings.push({ owner, settings });
  }

  /** The settings fragments declared so far, in load order. */
  settings(): readonly OwnedSettings[] {
    return [...this.#settings];
  }

  /** Declares a slot so it is listed even before anything is registered in it. */
  declareSlot<T extends Strategy>(slot: Slot<T>): void {
    const known = this.#slots.get(slot.name);
    if (known && known.id !== slot.id) throw new ConfigError(`slot '${slot.name}' declared twice with different ids`);
    if (!known) {
      this.#slots.set(slot.name, slot as Slot<Strategy>);
      this.#catalogue.set(slot.name, []);
    }
  }

  register<T extends Strategy>(slot: Slot<T>, strategy: T): void {
    this.declareSlot(slot);
    if (!strategy.name || /\s/.test(strategy.name)) {
      throw new ConfigError(`strategy name '${strategy.name}' in slot '${slot.name}' must be a non-empty word`);
    }
    const entries = this.#catalogue.get(slot.name)!;
    if (entries.some((e) => e.name === strategy.name)) {
      throw new ConfigError(`'${strategy.name}' is already registered in slot '${slot.name}'`);
    }
    this.#container.bind<T>(slot.id).toConstantValue(strategy).whenNamed(strategy.name);
    entries.push({ slot: slot.name, name: strategy.name, description: strategy.description, extension: this.#loading });
  }

  resolve<T extends Strategy>(slot: Slot<T>, name: string): T {
    if (!this.#container.isBound(slot.id, { name })) {
      throw new UnknownStrategyError(slot.name, name, this.names(slot));
    }
    return this.#container.get<T>(slot.id, { name });
  }

  has<T extends Strategy>(slot: Slot<T>, name: string): boolean {
    return this.#container.isBound(slot.id, { name });
  }

  names<T extends Strategy>(slot: Slot<T>): string[] {
    return (this.#catalogue.get(slot.name) ?? []).map((e) => e.name);
  }

  /** Every strategy registered in `slot`, in registration order. */
  all<T extends Strategy>(slot: Slot<T>): T[] {
    return this.names(slot).map((n) => this.resolve(slot, n));
  }

  slots(): SlotInfo[] {
    return [...this.#slots.values()].map((s) => ({
      name: s.name,
      description: s.description,
      strategies: [...(this.#catalogue.get(s.name) ?? [])],
    }));
  }

  /**
   * Runs `fn` with registrations attributed to `extension` (used by the extension loader). An
   * async `fn` (an extension whose `load` awaits before it registers) keeps the attribution until
   * its promise settles; extensions load one at a time, so attributions never interleave.
   */
  withExtension<R>(extension: string, fn: () => R): R {
    const previous = this.#loading;
    this.#loading = extension;
    let result: R;
    try {
      result = fn();
    } catch (e) {
      this.#loading = previous;
      throw e;
    }
    if (result instanceof Promise) {
      return result.finally(() => {
        this.#loading = previous;
      }) as R;
    }
    this.#loading = previous;
    return result;
  }
}
