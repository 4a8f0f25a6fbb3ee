/**
 * The money value of points, exact: a point's value is a decimal with at most 6 places (Program.pointValue,
 * DECIMAL(18,6)), held as an integer of millionths (bigint), so points × value is an exact product and a sum of
 * products equals the product of the sum — the points accounting report reconciles in money to the last decimal as
 * it does in points. No floating point takes part. Client-safe (the Finance page formats with it).
 */

export const POINT_VALUE_SCALE = 6;
const UNIT = 10n ** BigInt(POINT_VALUE_SCALE);
const DECIMAL = /^(\d{1,12})(?:\.(\d{1,6}))?$/;

/** ISO 4217 codes: three capital letters. */
export const isCurrency = (code: string) => /^[A-Z]{3}$/.test(code);

/** A non-negative decimal of at most 12 integer digits and 6 places ("0.01", "1", "0.000125"), or null if not one. */
export function parsePointValue(text: string): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  return BigInt(m[1]!) * UNIT + BigInt((m[2] ?? "").padEnd(POINT_VALUE_SCALE, "0"));
}

/** Millionths as a decimal string with `places` decimals at least (trailing zeros beyond them dropped). */
export function formatMillionths(units: bigint, places = 2): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / UNIT;
  let fraction = (abs % UNIT).toString().padStart(POINT_VALUE_SCALE, "0");
  while (fraction.length > places && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** The money value of `points` at `value` millionths per point, as a decimal string (exact). */
export const moneyOf = (points: number | bigint, value: bigint, places = 2) =>
  formatMillionths(BigInt(points) * value, places);
