#!/usr/bin/env node
// The npm release, shared by the release workflow and its rehearsal (`npm run test:release`), so both publish the
// same tarballs made the same way:
//
//   node scripts/release-packages.mjs pack --artifacts <dir> --out <dir> [--all-targets]
//   node scripts/release-packages.mjs publish --out <dir> [npm publish options…]
//
// `pack` stages three kinds of package outside the checkout and packs each into <out>/*.tgz, listed in publish order
// in <out>/release.json:
// - one per platform whose addon (`ledger-native.<platform>.node`) is found under --artifacts:
//   `@ledger-node/native-<platform>`, made by `napi create-npm-dirs` (os/cpu/libc fields). --all-targets (the
//   release) requires every target of native/package.json's `napi.targets`;
// - `@ledger-node/native`: the generated loader, with every target's platform package as an optional dependency at
//   the same version (what `napi prepublish` writes), so npm installs only the one matching the machine;
// - `ledger-node`: bin/ and the esbuild bundle (dist/bundle), with `@ledger-node/native` pinned to its version instead
//   of the checkout's `file:native`, no lifecycle scripts (the checkout's install script builds the addon from
//   source and needs the repo's scripts/) and only the dependencies the bundle loads at run time (everything else is
//   inside the bundle).
// `publish` runs `npm publish` on the tarballs in that order, against the registry npm is configured with, skipping a
// version the registry already has (a re-run after a partial publish).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = 'release.json';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
  return result.stdout;
}

/** Every file under `dir`, as absolute paths. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * The packages the bundle loads from node_modules at run time, from the list scripts/bundle.mjs writes out of esbuild's
 * metafile (its `external` packages the bundle imports, and Node's built-ins), with the checkout's version ranges.
 */
function runtimeDependencies(dependencies) {
  const listed = join(root, 'dist', 'bundle-externals.json');
  if (!existsSync(listed)) throw new Error(`${listed} is missing: run \`npm run build:ts\``);
  const builtins = new Set(builtinModules);
  const packages = new Set();
  for (const spec of readJson(listed)) {
    if (spec.startsWith('node:') || builtins.has(spec)) continue;
    const parts = spec.split('/');
    packages.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  const missing = [...packages].filter((name) => dependencies[name] === undefined);
  if (missing.length > 0) {
    throw new Error(`the bundle loads ${missing.join(', ')}, which package.json does not depend on`);
  }
  return Object.fromEntries([...packages].sort().map((name) => [name, dependencies[name]]));
}

/** The published package.json of ledger-node, from the checkout's. */
export function publishedRootManifest(pkg, nativeVersion) {
  const dependencies = runtimeDependencies(pkg.dependencies);
  if (dependencies['@ledger-node/native'] === undefined) {
    throw new Error('dist/bundle does not load @ledger-node/native: is scripts/bundle.mjs still marking it external?');
  }
  dependencies['@ledger-node/native'] = nativeVersion;
  const keep = [
    'name',
    'version',
    'description',
    'license',
    'type',
    'engines',
    'bin',
    'exports',
    'types',
    'repository',
    'homepage',
  ];
  const manifest = Object.fromEntries(keep.filter((key) => pkg[key] !== undefined).map((key) => [key, pkg[key]]));
  return { ...manifest, files: ['bin', 'dist/bundle'], dependencies };
}

function stagePlatformPackages(nativeStage, artifactsDir, allTargets) {
  if (!existsSync(artifactsDir)) throw new Error(`no such directory: ${artifactsDir}`);
  run(
    process.execPath,
    [join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js'), 'create-npm-dirs', '--cwd', nativeStage],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const artifacts = new Map(walk(artifactsDir).map((file) => [file.split(/[\\/]/).pop(), file]));
  const npmDir = join(nativeStage, 'npm');
  const platforms = readdirSync(npmDir).map((name) => ({
    dir: join(npmDir, name),
    pkg: readJson(join(npmDir, name, 'package.json')),
  }));
  const missing = platforms.filter(({ pkg }) => !artifacts.has(pkg.main));
  if (allTargets && missing.length > 0) {
    throw new Error(`missing addons under ${artifactsDir}: ${missing.map(({ pkg }) => pkg.main).join(', ')}`);
  }
  const built = platforms.filter(({ pkg }) => artifacts.has(pkg.main));
  if (built.length === 0) throw new Error(`no addon (ledger-native.<platform>.node) under ${artifactsDir}`);
  for (const { dir, pkg } of built) cpSync(artifacts.get(pkg.main), join(dir, pkg.main));
  return { all: platforms.map(({ pkg }) => pkg.name), built: built.map(({ dir }) => dir) };
}

/** Stages and packs the release into `outDir`; returns the manifest (tarballs in publish order, with sizes). */
export function packRelease({ artifactsDir, outDir, allTargets = false }) {
  const rootPkg = readJson(join(root, 'package.json'));
  const nativePkg = readJson(join(root, 'native', 'package.json'));
  if (rootPkg.version !== nativePkg.version) {
    throw new Error(`package.json is at ${rootPkg.version} but native/package.json at ${nativePkg.version}: bump both`);
  }
  const bundleDir = join(root, 'dist', 'bundle');
  if (!existsSync(join(bundleDir, 'main.js'))) throw new Error('dist/bundle is missing: run `npm run build:ts` first');

  rmSync(outDir, { recursive: true, force: true });
  const stage = join(outDir, 'stage');
  const nativeStage = join(stage, 'native');
  mkdirSync(nativeStage, { recursive: true });
  for (const file of ['package.json', ...nativePkg.files]) cpSync(join(root, 'native', file), join(nativeStage, file));
  const platforms = stagePlatformPackages(nativeStage, artifactsDir, allTargets);
  const optionalDependencies = Object.fromEntries(platforms.all.map((name) => [name, nativePkg.version]));
  writeJson(join(nativeStage, 'package.json'), { ...nativePkg, optionalDependencies });

  const rootStage = join(stage, 'ledger-node');
  mkdirSync(rootStage, { recursive: true });
  cpSync(join(root, 'bin'), join(rootStage, 'bin'), { recursive: true });
  cpSync(bundleDir, join(rootStage, 'dist', 'bundle'), { recursive: true });
  for (const file of readdirSync(root).filter((name) => /^(README|LICENSE|COPYING)/i.test(name))) {
    cpSync(join(root, file), join(rootStage, file));
  }
  writeJson(join(rootStage, 'package.json'), publishedRootManifest(rootPkg, nativePkg.version));

  const packages = [...platforms.built, nativeStage, rootStage].map((dir) => {
    const [packed] = JSON.parse(run('npm', ['pack', dir, '--json', '--ignore-scripts', '--pack-destination', outDir]));
    return {
      name: packed.name,
      version: packed.version,
      tarball: packed.filename,
      size: packed.size,
      unpackedSize: packed.unpackedSize,
      files: packed.entryCount,
    };
  });
  const manifest = { packages };
  writeJson(join(outDir, MANIFEST), manifest);
  return manifest;
}

export function readRelease(outDir) {
  return readJson(join(outDir, MANIFEST));
}

/** `npm publish` of each tarball in order; `args` go to npm publish (e.g. --provenance); `env` to npm. */
export function publishRelease(outDir, args = [], env = process.env) {
  for (const pkg of readRelease(outDir).packages) {
    const view = spawnSync('npm', ['view', `${pkg.name}@${pkg.version}`, 'version'], { encoding: 'utf8', env });
    if (view.status === 0 && view.stdout.trim() === pkg.version) {
      console.error(`${pkg.name}@${pkg.version} is already published: skipped`);
      continue;
    }
    console.error(`publishing ${pkg.name}@${pkg.version}`);
    run('npm', ['publish', join(outDir, pkg.tarball), '--access', 'public', ...args], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
}

export function formatSize(bytes) {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}

export function printRelease({ packages }) {
  const width = Math.max(...packages.map((p) => p.name.length));
  console.log(`${'package'.padEnd(width)}  ${'tarball'.padStart(9)}  ${'unpacked'.padStart(9)}  files`);
  for (const p of packages) {
    console.log(
      `${p.name.padEnd(width)}  ${formatSize(p.size).padStart(9)}  ${formatSize(p.unpackedSize).padStart(9)}  ${p.files}`,
    );
  }
}

function option(args, name) {
  const i = args.indexOf(name);
  if (i < 0 || args[i + 1] === undefined) throw new Error(`${name} <dir> is required`);
  const value = resolve(args[i + 1]);
  args.splice(i, 2);
  return value;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  try {
    if (command === 'pack') {
      const allTargets = args.includes('--all-targets');
      const manifest = packRelease({
        artifactsDir: option(args, '--artifacts'),
        outDir: option(args, '--out'),
        allTargets,
      });
      printRelease(manifest);
    } else if (command === 'publish') {
      publishRelease(option(args, '--out'), args);
    } else {
      throw new Error(
        'usage: release-packages.mjs pack --artifacts <dir> --out <dir> [--all-targets] | publish --out <dir> [npm publish options]',
      );
    }
  } catch (error) {
    console.error(`release-packages: ${error.message}`);
    process.exit(1);
  }
}
