export type { TargetProfile } from './api/targets';
export { targetRef } from './api/targets';
export { TargetProfileSelect } from './components/TargetProfileSelect';
export { TargetProfilesPanel } from './components/TargetProfilesPanel';
export { useTargetProfiles } from './hooks/useTargetProfiles';
