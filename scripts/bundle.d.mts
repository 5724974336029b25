/** Bundles `entryPoints` ({ output name: source file }) into `outdir` (see bundle.mjs). */
export function bundle(o: { readonly entryPoints: Record<string, string>; readonly outdir: string }): void;
