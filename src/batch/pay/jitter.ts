/** Somewhere between half the ceiling and the ceiling: workers that failed together do not retry together. */
export function jittered(ceiling: number): number {
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
