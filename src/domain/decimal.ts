import BigNumber from 'bignumber.js';

/**
 * Conversions between the decimal numbers of the API and the integer minor units Redis holds.
 * Lua does integer math in doubles, exact below 2^53; every value handed to a script is checked
 * against that bound here, and the scripts check the products they form.
 */
export const MAX_SAFE = new BigNumber(Number.MAX_SAFE_INTEGER);

const D = BigNumber.clone({ EXPONENTIAL_AT: [-40, 40], DECIMAL_PLACES: 40 });

/** The exact decimal a JSON number stands for (its shortest round-trip form). */
export function decimal(value: number | string): BigNumber {
  return new D(typeof value === 'number' ? String(value) : value);
}

/** Rounds down to `digits` decimals and returns the integer count of 10^-digits units. */
export function toMinorDown(value: number | string, digits: number): BigNumber {
  return decimal(value).shiftedBy(digits).integerValue(BigNumber.ROUND_DOWN);
}

/** Integer minor units as a decimal string, for ARGV. */
export function minorString(v: BigNumber): string {
  return v.toFixed(0);
}

/** A decimal integer string moved `digits` places right, exactly, as plain text: ("-1234", 2) -> "-12.34". */
export function shiftDecimal(int: string, digits: number): string {
  if (digits === 0) return int;
  const neg = int.startsWith('-');
  const s = (neg ? int.slice(1) : int).padStart(digits + 1, '0');
  const whole = s.slice(0, s.length - digits);
  const frac = s.slice(s.length - digits).replace(/0+$/, '');
  const out = frac ? `${whole}.${frac}` : whole;
  return neg ? `-${out}` : out;
}

const INTEGER = /^-?\d+$/;

/** Minor units (a decimal integer string from Redis) back to a JSON number. */
export function fromMinor(minor: string | number | null | undefined, digits: number): number {
  if (minor === null || minor === undefined || minor === '') return 0;
  // history pages convert thousands of fields: an integer string is shifted as text, the same
  // decimal BigNumber would parse, at a fraction of its cost
  if (typeof minor === 'string' && digits >= 0 && INTEGER.test(minor)) return Number(shiftDecimal(minor, digits));
  return new D(minor).shiftedBy(-digits).toNumber();
}

const SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** fromMinor of an integer held as a bigint, without a BigNumber: the same double (Number of the decimal text). */
export function fromMinorInt(minor: bigint, digits: number): number {
  // both exact doubles: IEEE division rounds the true quotient correctly, as parsing its decimal text does
  if (minor < SAFE_BIG && minor > -SAFE_BIG && digits <= 22) return Number(minor) / 10 ** digits;
  const neg = minor < 0n;
  const s = (neg ? -minor : minor).toString().padStart(digits + 1, '0');
  const text = digits > 0 ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
  return Number(neg ? `-${text}` : text);
}

export function fitsEngine(v: BigNumber): boolean {
  return v.isFinite() && v.abs().lte(MAX_SAFE);
}

/** Fee rate as parts per million (the scripts' fee unit); rates must be whole ppm. */
export function feeRatePpm(rate: number): number {
  return decimal(rate).shiftedBy(6).integerValue(BigNumber.ROUND_HALF_UP).toNumber();
}

export function ppmToRate(ppm: string | number): number {
  return new D(ppm).shiftedBy(-6).toNumber();
}
