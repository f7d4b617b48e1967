/** Records as the deploy API answers them (docs: /work/coord/deploy-api-notes.md), for component tests. */
export const DEPLOYMENT = {
  id: 7,
  workspace: 1,
  project: 4,
  name: 'digits-api',
  model_version: 12,
  model_version_name: 'V3',
  forecast_contract: null,
  template: 'image_classification',
  previous_model_version: 11,
  status: 'active' as const,
  traffic: [{ model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 100 }],
  sticky_traffic: false,
  predict_url: '/api/v1/deployments/7/predict/',
  history: [
    { model_version: 11, model_version_name: 'V2', action: 'create' as const, at: '2026-11-29T10:00:00Z', by: 'admin', details: {} },
    { model_version: 12, model_version_name: 'V3', action: 'switch' as const, at: '2026-11-29T11:00:00Z', by: 'admin', details: {} },
  ],
  created_at: '2026-11-29T10:00:00Z',
  created_by: 'admin',
  updated_at: '2026-11-29T11:00:00Z',
};

export const MODEL_VERSIONS = [
  { id: 12, name: 'V3', project: 4 },
  { id: 11, name: 'V2', project: 4 },
  { id: 10, name: 'V1', project: 4 },
];

export const KEY = {
  id: 3,
  name: 'mobile app',
  prefix: 'spd_ab12',
  expires_at: null,
  quota_per_minute: 60,
  status: 'active',
  revoked_at: null,
  last_used_at: null,
  created_at: '2026-11-29T10:00:00Z',
  created_by: 'admin',
};

export const PACKAGE = {
  id: 5,
  workspace: 1,
  project: 4,
  model_version: 12,
  model_version_name: 'V3',
  kind: 'server',
  status: 'succeeded',
  job: 40,
  size_bytes: 2_500_000,
  sha256: 'ab'.repeat(32),
  report: {},
  error: '',
  download_url: '/api/v1/packages/5/download/',
  filename: 'sampan-server-v3.zip',
  created_at: '2026-11-29T10:00:00Z',
  created_by: 'admin',
};
