/** Order of two stream entry ids (`<ms>-<n>`): negative, zero or positive. */
export function compareIds(a: string, b: string): number {
  const [am, an] = a.split('-').map(Number);
  const [bm, bn] = b.split('-').map(Number);
  return am - bm || an - bn;
}
