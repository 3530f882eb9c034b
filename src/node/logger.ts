/**
 * The node's log: pino, JSON lines on stderr (pretty on a terminal), stdout left to commands.
 * Credentials never reach it: no code logs them, and the redaction below is the second line.
 */
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.js';

const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'privateKey',
  '*.privateKey',
  'PrivateKey',
  '*.PrivateKey',
];

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Human-readable lines instead of JSON (default: when stderr is a terminal). */
  readonly pretty?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const settings = { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (options.pretty ?? process.stderr.isTTY === true) {
    return pino(settings, pretty({ destination: 2, sync: true }));
  }
  return pino(settings, pino.destination({ dest: 2, sync: true }));
}
