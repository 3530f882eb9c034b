#!/usr/bin/env node
// Runs cargo with the shared target directory and the addon's target triple (see cache-dirs.mjs):
// `node scripts/cargo.mjs test`.
import { spawnSync } from 'node:child_process';
import { cargoTargetDir, hostTarget } from './cache-dirs.mjs';

const target = hostTarget();
const result = spawnSync('cargo', process.argv.slice(2), {
  stdio: 'inherit',
  env: {
    ...process.env,
    CARGO_TARGET_DIR: cargoTargetDir,
    ...(target === undefined ? {} : { CARGO_BUILD_TARGET: target }),
  },
});
if (result.error) {
  console.error(`cargo could not be started (${result.error.message}). Install Rust from https://rustup.rs`);
  process.exit(1);
}
process.exit(result.status ?? 1);
