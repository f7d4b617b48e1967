/** The tabs of a deployment's page, in order; the route's `:tab` is one of them. */
export const DEPLOYMENT_TABS = ['overview', 'traffic', 'usage', 'capture', 'batch', 'keys', 'try', 'code'] as const;
export type DeploymentTab = (typeof DEPLOYMENT_TABS)[number];
