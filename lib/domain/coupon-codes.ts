/**
 * The one place that says what a coupon code is. The import (coupons.ts), the CLI and the dashboard's CSV reader
 * and form all check codes with it. Client-safe: constants only.
 */

/** Letters, digits, - and _, starting with a letter or digit, at most 64. */
export const COUPON_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** COUPON_CODE in words, for messages. */
export const COUPON_CODE_RULE = "letters, digits, - and _, at most 64";

/** Why a line of an import is refused, quoting the code (at most 70 characters of it). */
export const notACouponCode = (code: string) => `"${code.slice(0, 70)}" is not a coupon code (${COUPON_CODE_RULE})`;
