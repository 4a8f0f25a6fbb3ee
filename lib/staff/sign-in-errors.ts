/** The error next-auth reports for a sign-in refused by the throttle (lib/staff/auth.ts); the sign-in form says so. */
export const SIGN_IN_THROTTLED = "TooManyAttempts";

/**
 * The error next-auth reports for a right password on an account with a second factor when no code was sent (or a
 * wrong one): the sign-in form then asks for the code from the authenticator app, or a recovery code.
 */
export const SECOND_FACTOR_NEEDED = "SecondFactorRequired";
