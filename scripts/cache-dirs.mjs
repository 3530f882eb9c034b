// Where build caches live: outside the clone, so fresh clones and CI runs reuse them.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const cacheRoot = process.env.LEDGER_CACHE_DIR ?? join(homedir(), '.cache', 'ledger-node');
export const cargoTargetDir = process.env.CARGO_TARGET_DIR ?? join(cacheRoot, 'target');

/**
 * The host's target triple. `napi build` passes `--target <host>`, which puts artifacts under
 * `target/<triple>/`; plain cargo commands given the same target share them instead of compiling
 * the whole proofs tree a second time under `target/release/`.
 */
export function hostTarget() {
  if (process.env.CARGO_BUILD_TARGET) return process.env.CARGO_BUILD_TARGET;
  const rustc = spawnSync('rustc', ['-vV'], { encoding: 'utf8' });
  return /^host: (\S+)$/m.exec(rustc.stdout ?? '')?.[1];
}
