import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, MODEL_VERSIONS } from '../test/fixtures';
import { DeploymentOverview } from './DeploymentOverview';

const HISTORY = [
  { model_version: 12, model_version_name: 'V3', action: 'create' as const, at: '2026-11-29T10:00:00Z', by: 'admin', details: {} },
  {
    model_version: 11,
    model_version_name: 'V2',
    action: 'traffic' as const,
    at: '2026-11-29T11:00:00Z',
    by: 'admin',
    details: {
      traffic: [
        { model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 90 },
        { model_version: 11, model_version_name: 'V2', role: 'canary' as const, weight: 10 },
      ],
      sticky: true,
    },
  },
  {
    model_version: 10,
    model_version_name: 'V1',
    action: 'shadow' as const,
    at: '2026-11-29T11:30:00Z',
    by: 'admin',
    details: {
      traffic: [
        { model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 90 },
        { model_version: 11, model_version_name: 'V2', role: 'canary' as const, weight: 10 },
        { model_version: 10, model_version_name: 'V1', role: 'shadow' as const, weight: 0 },
      ],
    },
  },
  {
    model_version: 11,
    model_version_name: 'V2',
    action: 'promote' as const,
    at: '2026-11-29T12:00:00Z',
    by: 'ops',
    details: {
      traffic: [
        { model_version: 11, model_version_name: 'V2', role: 'primary' as const, weight: 100 },
        { model_version: 10, model_version_name: 'V1', role: 'shadow' as const, weight: 0 },
      ],
    },
  },
  {
    model_version: null,
    model_version_name: null,
    action: 'capture' as const,
    at: '2026-11-29T13:00:00Z',
    by: 'ops',
    details: { capture: { enabled: true, sample_rate: 0.1, retention_days: 30, max_bytes: 0, low_confidence_below: 0.6, shadow_disagreement: true, labels: [] } },
  },
];

describe('deployment history details', () => {
  it('shows the split after traffic, shadow and promote changes, and the capture policy', async () => {
    fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    renderWithApp(<DeploymentOverview deployment={{ ...DEPLOYMENT, history: HISTORY }} onDeleted={vi.fn()} />);
    const entries = screen.getAllByTestId('deployment-history-entry');
    expect(entries.map((entry) => entry.getAttribute('data-action'))).toEqual(['capture', 'promote', 'shadow', 'traffic', 'create']);
    expect(entries[3]).toHaveTextContent('Traffic split changed');
    expect(entries[3]).toHaveTextContent('V3 90% (primary) · V2 10% (canary)');
    expect(entries[3]).toHaveTextContent('Sticky callers');
    expect(entries[2]).toHaveTextContent('Shadow changed');
    expect(entries[2]).toHaveTextContent('Shadow: V1');
    expect(entries[1]).toHaveTextContent('Canary promoted · V2');
    expect(entries[1]).toHaveTextContent('V2 100% (primary)');
    expect(entries[0]).toHaveTextContent('Request capture changed');
    expect(entries[0]).toHaveTextContent('Capture on · 10% sampled · kept 30 days · score below 0.6 · shadow disagreements');
    expect(entries[4].querySelector('[data-testid="deployment-history-details"]')).toBeNull();
  });

  it('says a shadow was turned off, and speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    const off = {
      model_version: null,
      model_version_name: null,
      action: 'shadow' as const,
      at: '2026-11-29T14:00:00Z',
      by: 'ops',
      details: { traffic: [{ model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 100 }] },
    };
    renderWithApp(<DeploymentOverview deployment={{ ...DEPLOYMENT, history: [off] }} onDeleted={vi.fn()} />);
    const [entry] = screen.getAllByTestId('deployment-history-entry');
    expect(entry).toHaveTextContent('影子版本已更改');
    expect(entry).toHaveTextContent('V3 100%（主版本）');
    expect(entry).toHaveTextContent('无影子');
  });
});
