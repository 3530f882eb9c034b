/**
 * The one place that chooses the proofs library's directories. The library reads them once per
 * process (rust-fil-proofs builds its settings lazily from `FIL_PROOFS_*`), so every function of
 * this module settles them before its first call into the addon.
 */
import { resolve } from 'node:path';
import { call, native } from './native.js';

export interface ProofsDirs {
  /** Groth16 `.params`/`.vk` files. */
  parameterCache: string;
  /** SDR parent graphs, written by the first seal of each sector shape. */
  parentCache: string;
}

let configured: ProofsDirs | undefined;

/**
 * Sets the directories: `parameterCache`, else `$LEDGER_PROOF_PARAMS`, else
 * `~/.cache/ledger-node/proof-params` (`$LEDGER_CACHE_DIR` moves `~/.cache/ledger-node`); the parent
 * cache is `<cache root>/proof-parents`. Repeating the same choice is free; another parameter cache
 * after the first proofs call fails with `ERR_PROOF_SETTINGS_CONFLICT`.
 */
export function configureProofs(options: { parameterCache?: string } = {}): ProofsDirs {
  const requested = options.parameterCache === undefined ? undefined : resolve(options.parameterCache);
  const dirs = call(() => native.proofsResolveDirs(requested));
  call(() => native.proofsConfigure(dirs));
  configured = dirs;
  return dirs;
}

/** The directories in force, choosing the defaults on first use. */
export function proofsDirs(): ProofsDirs {
  return configured ?? configureProofs();
}

/** Where parameters are read or generated: `dir` when given, else the configured cache. */
export function parameterDir(dir?: string): string {
  return dir === undefined ? proofsDirs().parameterCache : resolve(dir);
}
