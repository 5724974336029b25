/**
 * splitmix64 (bench/shared/random.ts) in 32-bit halves: the same outputs, uniform and normal
 * variates for a seed, without BigInt, about ten times as fast. The healthy-rate Monte Carlo of
 * `npm run bench:spc` draws some 10^8 variates a run; test/bench/spc/splitmix-fast.test.ts
 * checks the streams agree.
 */
import type { Random } from '../shared/random.ts';

const TWO_POW_32 = 2 ** 32;
const TWO_POW_21 = 2 ** 21;
const TWO_POW_53 = 2 ** 53;

/** The high 32 bits of a 32 × 32-bit product, with the low ones computed apart. */
function mulHigh(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = ((a0 * b0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return a1 * b1 + Math.floor(p01 / 65536) + Math.floor(p10 / 65536) + Math.floor(mid / 65536);
}

/** splitmix64 seeded with `seed`, as {@link splitmix64} of bench/shared/random.ts. */
export function splitmix64Fast(seed: number | bigint): Random {
  const s = BigInt.asUintN(64, BigInt(seed));
  let hi = Number(s >> 32n);
  let lo = Number(s & 0xffffffffn);
  let outHi = 0;
  let outLo = 0;
  let spare: number | undefined;
  const next = (): void => {
    // state += 0x9e3779b97f4a7c15
    const l = lo + 0x7f4a7c15;
    lo = l >>> 0;
    hi = (hi + 0x9e3779b9 + (l >= TWO_POW_32 ? 1 : 0)) >>> 0;
    let zh = hi;
    let zl = lo;
    // z ^= z >> 30; z *= 0xbf58476d1ce4e5b9
    zl = (zl ^ ((zl >>> 30) | (zh << 2))) >>> 0;
    zh = (zh ^ (zh >>> 30)) >>> 0;
    let ph = (mulHigh(zl, 0x1ce4e5b9) + Math.imul(zh, 0x1ce4e5b9) + Math.imul(zl, 0xbf58476d)) >>> 0;
    let pl = Math.imul(zl, 0x1ce4e5b9) >>> 0;
    zh = ph;
    zl = pl;
    // z ^= z >> 27; z *= 0x94d049bb133111eb
    zl = (zl ^ ((zl >>> 27) | (zh << 5))) >>> 0;
    zh = (zh ^ (zh >>> 27)) >>> 0;
    ph = (mulHigh(zl, 0x133111eb) + Math.imul(zh, 0x133111eb) + Math.imul(zl, 0x94d049bb)) >>> 0;
    pl = Math.imul(zl, 0x133111eb) >>> 0;
    // z ^= z >> 31
    outLo = (pl ^ ((pl >>> 31) | (ph << 1))) >>> 0;
    outHi = (ph ^ (ph >>> 31)) >>> 0;
  };
  const uniform = (): number => {
    next();
    return (outHi * TWO_POW_21 + (outLo >>> 11)) / TWO_POW_53;
  };
  return {
    nextUint64() {
      next();
      return (BigInt(outHi) << 32n) | BigInt(outLo);
    },
    uniform,
    normal() {
      if (spare !== undefined) {
        const z = spare;
        spare = undefined;
        return z;
      }
      const r = Math.sqrt(-2 * Math.log(1 - uniform()));
      const theta = 2 * Math.PI * uniform();
      spare = r * Math.sin(theta);
      return r * Math.cos(theta);
    },
  };
}
