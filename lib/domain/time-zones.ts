/**
 * The one place that says what a program's time zone may be: an IANA name the runtime knows
 * (`Intl.supportedValuesOf("timeZone")`), or "UTC" (the default, which that list leaves out). Client-safe: the
 * settings form offers the same list.
 */

export const DEFAULT_TIME_ZONE = "UTC";

let zones: Set<string> | null = null;

/** Every time zone a program may use, "UTC" first. */
export function timeZones(): string[] {
  return [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf("timeZone").filter((z) => z !== DEFAULT_TIME_ZONE)];
}

export function isTimeZone(value: string): boolean {
  zones ??= new Set(timeZones());
  return zones.has(value);
}
