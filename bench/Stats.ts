/**
 * Small statistics the benches share. `median` is the middle value, or the mean of the middle two
 * (bench/fleet/count.ts, slots.ts, bench/ocr/lineModelCost.ts; older benches still carry their
 * own copies, bench/browser's being the lower middle).
 */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
