/**
 * The node's log subsystems, for LogList and LogSetLevel (Lotus's go-log subsystems,
 * filecoin-project/lotus `api/api_common.go`, `node/impl/common/common.go`): every pino child
 * logger created with a `module` binding (`rpc`, `net`, `sync`, `mpool`, `miner`, `sealing` …) belongs
 * to the subsystem of that name, and the root logger's own lines are the `node` subsystem. A pino
 * child copies its parent's level when it is made, so a level is set on each logger of the
 * subsystem, not on the root.
 */
import type { Logger } from 'pino';
import type { LogContext } from '../rpc/index.js';
import { LedgerError } from '../utils/errors.js';

/** The subsystem of the root logger's own lines. */
export const ROOT_SUBSYSTEM = 'node';

const PRUNE_AT = 64;

/** LogSetLevel names no subsystem the node has, or no pino level. */
export class LogLevelError extends LedgerError {
  constructor(message: string) {
    super('ERR_LOG_LEVEL', message);
  }
}

export class SubsystemLoggers implements LogContext {
  readonly #root: Logger;
  /** Weak: a logger made for a connection or a job must not live on because it was listed here. */
  readonly #loggers = new Map<string, Set<WeakRef<Logger>>>();

  /** Follows every child made from `root` from now on: build it before the services that log. */
  constructor(root: Logger) {
    this.#root = root;
    this.#add(ROOT_SUBSYSTEM, root);
    const previous = root.onChild;
    root.onChild = (child) => {
      const module = child.bindings().module;
      if (typeof module === 'string') this.#add(module, child);
      previous.call(root, child);
    };
  }

  list(): string[] {
    return [...this.#loggers.keys()].filter((name) => this.#live(name).length > 0).sort();
  }

  setLevel(subsystem: string, level: string): void {
    const levels = [...Object.keys(this.#root.levels.values), 'silent'];
    if (!levels.includes(level)) {
      throw new LogLevelError(`unrecognized level: "${level}" (expected one of ${levels.join(', ')})`);
    }
    const names = subsystem === '*' ? this.list() : [subsystem];
    const loggers = names.flatMap((name) => this.#live(name));
    if (loggers.length === 0) {
      throw new LogLevelError(`no such logger: "${subsystem}" (LogList names the subsystems; * sets them all)`);
    }
    for (const logger of loggers) logger.level = level;
  }

  #add(name: string, logger: Logger): void {
    // Loggers made per job come and go: forget the collected ones now and then.
    if ((this.#loggers.get(name)?.size ?? 0) >= PRUNE_AT) this.#live(name);
    const set = this.#loggers.get(name) ?? new Set();
    set.add(new WeakRef(logger));
    this.#loggers.set(name, set);
  }

  /** The loggers of a subsystem still in use; forgets the collected ones. */
  #live(name: string): Logger[] {
    const set = this.#loggers.get(name);
    if (set === undefined) return [];
    const live: Logger[] = [];
    for (const reference of set) {
      const logger = reference.deref();
      if (logger === undefined) set.delete(reference);
      else live.push(logger);
    }
    if (set.size === 0) this.#loggers.delete(name);
    return live;
  }
}
