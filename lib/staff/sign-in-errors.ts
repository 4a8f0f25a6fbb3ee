/** The error next-auth reports for a sign-in refused by the throttle (lib/staff/auth.ts); the sign-in form says so. */
export const SIGN_IN_THROTTLED = "TooManyAttempts";
