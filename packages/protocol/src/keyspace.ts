/**
 * Key names. The first ten are the control-plane keys the seed names; the rest
 * are anonymous config keys. Shared so the publisher, the checker and the
 * report never disagree about what key 5 is called.
 */
export const NAMED_KEYS = [
  'cluster/membership',
  'routing/table',
  'policy/authz',
  'policy/residency',
  'quota/tenant-limits',
  'cert/rotation',
  'flag/new-checkout',
  'flag/beta-ui',
  'service/discovery',
  'config/log-level',
] as const;

export function keyName(index: number): string {
  return NAMED_KEYS[index] ?? `config/key-${String(index).padStart(4, '0')}`;
}
