#!/usr/bin/env node
// Builds the napi-rs addon in native/ from source when this is a source checkout with Rust
// available, or when no prebuilt binary for this platform loads. `--force` always builds.
// It is the checkout's `install` script only: the published ledger-node has no scripts and takes
// its addon from @ledger-node/native-<platform> (scripts/release-packages.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cargoTargetDir } from './cache-dirs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(root, 'native');
const force = process.argv.includes('--force');
const isSourceCheckout = existsSync(join(root, 'Cargo.toml'));

function prebuiltLoads() {
  const require = createRequire(join(nativeDir, 'index.js'));
  try {
    require(join(nativeDir, 'index.js'));
    return true;
  } catch {
    return false;
  }
}

function hasCargo() {
  return spawnSync('cargo', ['--version'], { stdio: 'ignore' }).status === 0;
}

if (!force && !isSourceCheckout && prebuiltLoads()) {
  process.exit(0);
}
if (!hasCargo()) {
  if (prebuiltLoads()) process.exit(0);
  console.error(
    [
      'ledger-node: no prebuilt native addon matches this platform and Rust is not installed.',
      'Install Rust (https://rustup.rs, 1.88 or newer), then run `npm run build:native`.',
    ].join('\n'),
  );
  process.exit(1);
}

console.error(`ledger-node: building the native addon (release; cargo target dir ${cargoTargetDir})…`);
const napiCli = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
if (!existsSync(napiCli)) {
  console.error('ledger-node: @napi-rs/cli is missing; run `npm install` in the source checkout first.');
  process.exit(1);
}
const args = [napiCli, 'build', '--cwd', nativeDir, '--platform', '--release'];
const build = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, CARGO_TARGET_DIR: cargoTargetDir },
});
if (build.status !== 0) {
  console.error('ledger-node: building the native addon failed (see the cargo output above).');
  process.exit(build.status ?? 1);
}
