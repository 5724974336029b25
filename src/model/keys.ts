/**
 * Keys shared by the collectors, so that one collector's records are found by another's ids
 * (unit activity for the summary, last unit times for the status page).
 */

/** Station ids are hexadecimal and compared case-insensitively, as the upstream does. */
export const stationKey = (id: string) => id.toLowerCase();
