/**
 * Token amounts are `bigint` attoFIL (1 FIL = 10^18 attoFIL). Parsing and formatting follow Lotus
 * `types.ParseFIL` and `types.FIL.String()`, so CLI input and output read the same as Lotus's.
 */
import { TokenAmountError } from './errors.js';

export type TokenAmount = bigint;

export const FILECOIN_PRECISION = 10n ** 18n;
/** The total supply, 2·10^9 FIL (Lotus `TotalFilecoinInt`); no message may move more. */
export const TOTAL_FILECOIN: TokenAmount = 2_000_000_000n * FILECOIN_PRECISION;

const MAX_NUMBER_LENGTH = 50;

/**
 * Parses `"1.5"`, `"1.5 FIL"`, `"-2fil"`, `"100 attoFIL"`, `"7 afil"`: a decimal number and an optional
 * case-insensitive unit (FIL by default); the result must be a whole number of attoFIL.
 */
export function parseFil(text: string): TokenAmount {
  const number = /^[-.0-9]*/.exec(text)?.[0] ?? '';
  const suffix = text.slice(number.length);
  const unit = suffix.trim().toLowerCase();
  let atto: boolean;
  if (unit === '' || unit === 'fil') atto = false;
  else if (unit === 'attofil' || unit === 'afil') atto = true;
  else throw new TokenAmountError(`unrecognized suffix: ${JSON.stringify(suffix)} (use FIL, attoFIL or afil)`);

  if (number.length > MAX_NUMBER_LENGTH) throw new TokenAmountError(`string length too large: ${number.length}`);
  const parts = /^(-?)(\d*)(?:\.(\d*))?$/.exec(number);
  if (parts === null || (parts[2] === '' && (parts[3] ?? '') === '')) {
    throw new TokenAmountError(`failed to parse ${JSON.stringify(number)} as a decimal number`);
  }
  const [, sign, whole = '', fraction = ''] = parts;
  const scale = atto ? 0 : 18;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > scale) {
    throw new TokenAmountError(
      `invalid ${atto ? 'atto' : ''}FIL value: ${JSON.stringify(number)} is not a whole number of attoFIL`,
    );
  }
  const magnitude = BigInt(`${whole || '0'}${significant.padEnd(scale, '0')}`);
  return sign === '-' ? -magnitude : magnitude;
}

/** `"1.5 FIL"`, `"0 FIL"`, `"-0.000000000000000001 FIL"`: exact, without trailing zeros (Lotus `FIL.String()`). */
export function formatFil(amount: TokenAmount): string {
  const magnitude = amount < 0n ? -amount : amount;
  const whole = magnitude / FILECOIN_PRECISION;
  const fraction = (magnitude % FILECOIN_PRECISION).toString().padStart(18, '0').replace(/0+$/, '');
  return `${amount < 0n ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`} FIL`;
}

/** `"1500000000000000000 attoFIL"`: the exact integer, which `parseFil` reads back. */
export function formatAttoFil(amount: TokenAmount): string {
  return `${amount} attoFIL`;
}
