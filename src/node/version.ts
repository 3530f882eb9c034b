import { readFileSync } from 'node:fs';

/** The package version (the same file is two levels up from src/node and from dist/node). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
