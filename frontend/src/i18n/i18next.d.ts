import 'i18next';
import type { en } from './resources';

// Keys are typed from the English catalogs: t('missing.key') does not compile.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: typeof en;
    returnNull: false;
  }
}
