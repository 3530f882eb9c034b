// Where build caches live: outside the clone, so fresh clones and CI runs reuse them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * A tool that tests or benchmarks run but the project does not depend on (verdaccio for the release rehearsal;
 * bench/mpool installs Ganache the same way), installed once into `$LEDGER_CACHE_DIR/<name>` with its packages at
 * pinned versions and without install scripts. Reinstalled when the pins change. Returns the directory.
 */
export function ensureCachedTool(name, packages, { overrides = {} } = {}) {
  const dir = join(cacheRoot, name);
  const want = JSON.stringify({ packages, overrides });
  const marker = join(dir, '.installed');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === want) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `${name}-tool`, private: true, overrides }, null, 2)}\n`,
  );
  console.error(`installing ${packages.join(' ')} into ${dir}`);
  const install = spawnSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...packages], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (install.status !== 0) throw new Error(`installing ${packages.join(' ')} into ${dir} failed`);
  writeFileSync(marker, want);
  return dir;
}
