/**
 * The one place for how long a rotated-out webhook signing secret may stay valid beside the new one, in hours
 * (0: it stops at once). Constants only: the dashboard's forms import it.
 */
export const ROTATION_OVERLAP_HOURS = { default: 24, max: 7 * 24 } as const;
