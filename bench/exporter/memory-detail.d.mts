/** Where the process's resident memory sits (see memory-detail.mjs); undefined off Linux. */
export function memoryDetail(): Record<string, unknown> | undefined;
