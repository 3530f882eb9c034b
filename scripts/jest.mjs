#!/usr/bin/env node
// Runs jest in ESM mode (it needs --experimental-vm-modules); extra arguments go to jest.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const jestBin = createRequire(import.meta.url).resolve('jest/bin/jest');
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jestBin, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
