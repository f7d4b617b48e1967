export const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

/** The ISO expiry for an option of EXPIRY_OPTIONS, counted from `now`; null for "never". */
export function expiryFromOption(option: string, now: Date = new Date()): string | null {
  const days = Number(option);
  if (!Number.isFinite(days)) return null;
  return new Date(now.getTime() + days * 24 * 3600 * 1000).toISOString();
}
