/**
 * The base of every error the node raises on purpose. `code` is stable (callers and the RPC
 * layer branch on it); `name` is the subclass name; `details` carries structured context.
 */
export class LedgerError extends Error {
  readonly code: string;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/** A caller passed something malformed; the message says what and why. */
export class InvalidArgumentError extends LedgerError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('ERR_INVALID_ARGUMENT', message, details === undefined ? undefined : { details });
  }
}
