/** How the attempts of a visit go: flow.ts and realistic-line.ts must agree for yields to come out as designed. */

/** A failed visit is tested at most this many times in total before the unit is scrapped. */
export const MAX_ATTEMPTS = 3;
/** A result is null this often; it counts as not pass and is retested like a failure. */
export const NULL_RESULT_RATE = 0.004;
// A real defect tends to fail again; most first failures, though, are false calls that pass on retest.
/** The textbook plant's retest failure rate (the realistic plant designs its own per station). */
export const RETEST_FAIL_RATE = 0.3;
