/**
 * Deployment keys created in this browser tab, kept in memory only (never in storage), so the
 * try-it panel can be pre-filled right after a key is shown once. A reload forgets them.
 */
type Listener = () => void;

const keys = new Map<number, { id: number; name: string; key: string }>();
const listeners = new Set<Listener>();

export const sessionKeys = {
  get(deploymentId: number): { id: number; name: string; key: string } | undefined {
    return keys.get(deploymentId);
  },
  remember(deploymentId: number, entry: { id: number; name: string; key: string }): void {
    keys.set(deploymentId, entry);
    listeners.forEach((listener) => listener());
  },
  /** Forgets the remembered key (only when it is the key `keyId`, when given), e.g. on revoke. */
  forget(deploymentId: number, keyId?: number): void {
    if (keyId !== undefined && keys.get(deploymentId)?.id !== keyId) return;
    keys.delete(deploymentId);
    listeners.forEach((listener) => listener());
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
