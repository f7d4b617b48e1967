export { authKeys } from './api/auth';
export type { User } from './api/auth';
export { LanguageSwitch } from './components/LanguageSwitch';
export { LoginForm } from './components/LoginForm';
export { RequireAuth } from './components/RequireAuth';
export { UserMenu } from './components/UserMenu';
export { useCsrfCookie, useMe, useSetLanguage, useUserLanguage } from './hooks/useAuth';
