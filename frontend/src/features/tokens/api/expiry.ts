/** The expiry choices of a new token: days from now, or "never". */
export const EXPIRY_OPTIONS = ['never', '7', '30', '90', '365'] as const;

/** The ISO expiry for an option of EXPIRY_OPTIONS, counted from `now`; null for "never". */
export function expiryFromOption(option: string, now: Date = new Date()): string | null {
  const days = Number(option);
  if (!Number.isFinite(days)) return null;
  return new Date(now.getTime() + days * 24 * 3600 * 1000).toISOString();
}
