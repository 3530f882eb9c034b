/**
 * The Groth16 parameter cache: what is there, and generating what is missing. Devnet parameters
 * come from a fixed public seed (ChaCha20, `ledger-node/devnet-groth16-seed1`), so every machine
 * generates byte-identical files; anyone can recompute the toxic waste, so they are insecure and
 * only fit devnets and tests.
 */
import { parameterDir } from './environment.js';
import { call, callAsync, native } from './native.js';

/** The 2 KiB circuits. PoRep (1 GiB of parameters, minutes to generate) is only needed to seal. */
export type Circuit = 'winning-post' | 'window-post' | 'porep';

export const POST_CIRCUITS: readonly Circuit[] = ['winning-post', 'window-post'];
export const ALL_CIRCUITS: readonly Circuit[] = [...POST_CIRCUITS, 'porep'];

export interface ParameterStatus {
  circuit: Circuit;
  state: 'complete' | 'missing' | 'damaged';
  /** Why a damaged pair is unusable. */
  problem?: string;
  paramsPath: string;
  vkPath: string;
  paramsBytes: number;
  vkBytes: number;
  /** True when this call generated the files. */
  generated: boolean;
  /** Time spent in this call. */
  seconds: number;
}

export interface ParameterOptions {
  /** The cache directory (default: the configured one, see `configureProofs`). */
  dir?: string;
  /** Include the PoRep circuit. */
  porep?: boolean;
}

export type ParameterProgress =
  | { circuit: Circuit; index: number; total: number; phase: 'start' }
  | { circuit: Circuit; index: number; total: number; phase: 'done'; status: ParameterStatus };

function circuitsFor(options: ParameterOptions): readonly Circuit[] {
  return options.porep === true ? ALL_CIRCUITS : POST_CIRCUITS;
}

/** The addon's status: the same fields, with plain strings and a nullable problem. */
type NativeParameterStatus = Omit<ParameterStatus, 'circuit' | 'state' | 'problem'> & {
  circuit: string;
  state: string;
  problem?: string | null;
};

function fromNative(status: NativeParameterStatus): ParameterStatus {
  const { problem, ...rest } = status;
  return {
    ...rest,
    circuit: status.circuit as Circuit,
    state: status.state as ParameterStatus['state'],
    ...(problem ? { problem } : {}),
  };
}

/** The state of each circuit's files; reads file headers only. */
export function parameterStatus(options: ParameterOptions = {}): ParameterStatus[] {
  const dir = parameterDir(options.dir);
  return circuitsFor(options).map((circuit) => fromNative(call(() => native.proofsParameterStatus(dir, circuit))));
}

/**
 * Makes every circuit's files complete: keeps complete files, generates the others off the main
 * thread (one circuit at a time; other processes generating the same circuit are waited for).
 * `onProgress` hears of the circuits to generate only: with every file cached it is never called.
 */
export async function ensureParameters(
  options: ParameterOptions & { onProgress?: (event: ParameterProgress) => void } = {},
): Promise<ParameterStatus[]> {
  const dir = parameterDir(options.dir);
  const circuits = circuitsFor(options);
  const toGenerate = parameterStatus(options)
    .filter((status) => status.state !== 'complete')
    .map((status) => status.circuit);
  const results: ParameterStatus[] = [];
  for (const circuit of circuits) {
    const index = toGenerate.indexOf(circuit);
    const progress = { circuit, index, total: toGenerate.length };
    if (index >= 0) options.onProgress?.({ ...progress, phase: 'start' });
    const status = fromNative(await callAsync(() => native.proofsEnsureParametersAsync(dir, circuit)));
    results.push(status);
    if (index >= 0) options.onProgress?.({ ...progress, phase: 'done', status });
  }
  return results;
}
