#!/usr/bin/env node
// Runs cargo with the shared target directory (see cache-dirs.mjs): `node scripts/cargo.mjs test`.
import { spawnSync } from 'node:child_process';
import { cargoTargetDir } from './cache-dirs.mjs';

const result = spawnSync('cargo', process.argv.slice(2), {
  stdio: 'inherit',
  env: { ...process.env, CARGO_TARGET_DIR: cargoTargetDir },
});
if (result.error) {
  console.error(`cargo could not be started (${result.error.message}). Install Rust from https://rustup.rs`);
  process.exit(1);
}
process.exit(result.status ?? 1);
