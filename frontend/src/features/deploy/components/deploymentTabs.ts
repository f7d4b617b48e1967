/** The tabs of a deployment's page, in order; the route's `:tab` is one of them. */
export const DEPLOYMENT_TABS = ['overview', 'batch', 'keys', 'usage', 'capture', 'try', 'code'] as const;
export type DeploymentTab = (typeof DEPLOYMENT_TABS)[number];
