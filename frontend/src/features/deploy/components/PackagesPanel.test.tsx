import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { PACKAGE } from '../test/fixtures';
import { PackagesPanel } from './PackagesPanel';

describe('PackagesPanel', () => {
  it('shows a building package with its job progress live and the download once it succeeded', async () => {
    let status = 'running';
    const server = fakeApi({
      'GET /api/v1/packages/': () =>
        json(page([{ ...PACKAGE, status, size_bytes: status === 'succeeded' ? 2_500_000 : null, download_url: status === 'succeeded' ? PACKAGE.download_url : null }])),
      'GET /api/v1/jobs/40/': () => {
        const job = { id: 40, status, progress: { step: 2, total: 4, message: 'writing test vectors' } };
        status = 'succeeded';
        return json(job);
      },
    });
    renderWithApp(<PackagesPanel modelVersionId={12} />);
    expect(await screen.findByTestId('package-status-5')).toHaveTextContent('running');
    expect(screen.getByTestId('package-download-5')).toBeDisabled();
    expect(await screen.findByTestId('package-progress-message-5')).toHaveTextContent('writing test vectors');
    expect(screen.getByTestId('package-progress-5')).toHaveAttribute('data-value', '50');
    await waitFor(() => expect(screen.getByTestId('package-status-5')).toHaveTextContent('succeeded'), { timeout: 4000 });
    expect(screen.getByTestId('package-download-5')).toHaveAttribute('href', '/api/v1/packages/5/download/');
    expect(screen.getByTestId('package-size-5')).toHaveTextContent('2.38 MiB');
    expect(server.calls[0].search.get('model_version')).toBe('12');
  });

  it("shows a device SDK's compression report and a failed build's error", async () => {
    fakeApi({
      'GET /api/v1/packages/': page([
        {
          ...PACKAGE,
          id: 6,
          kind: 'device',
          report: {
            kind: 'device',
            version: 1,
            compression: {
              fp32: { bytes: 409_600, accuracy: 0.972 },
              int8: { bytes: 112_640, accuracy: 0.968 },
              top1_agreement: 0.991,
              test_images: 360,
              quantization: { calibration_images: 300 },
            },
          },
        },
        { ...PACKAGE, id: 8, status: 'failed', error: 'The model version has no ONNX file.', download_url: null },
      ]),
    });
    renderWithApp(<PackagesPanel projectId={4} />);
    expect(await screen.findByTestId('compression-report-6')).toBeInTheDocument();
    expect(screen.getByTestId('compression-fp32-6')).toHaveTextContent('400.0 KiB');
    expect(screen.getByTestId('compression-fp32-6')).toHaveTextContent('97.2%');
    expect(screen.getByTestId('compression-int8-6')).toHaveTextContent('110.0 KiB');
    expect(screen.getByTestId('compression-int8-6')).toHaveTextContent('96.8%');
    expect(screen.getByTestId('compression-agreement-6')).toHaveTextContent('99.1%');
    expect(screen.getByTestId('compression-ratio-6')).toHaveTextContent('3.6× smaller');
    expect(screen.getByTestId('compression-report-6')).toHaveTextContent('accuracy on 360 test images; int8 calibrated on 300 training images');
    expect(screen.getByTestId('package-error-8')).toHaveTextContent('no ONNX file');
    expect(screen.getByTestId('package-download-8')).toBeDisabled();
  });

  it('deletes a package after confirmation', async () => {
    let packages = [PACKAGE];
    const server = fakeApi({
      'GET /api/v1/packages/': () => json(page(packages)),
      'DELETE /api/v1/packages/5/': () => {
        packages = [];
        return new Response(null, { status: 204 });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<PackagesPanel projectId={4} />);
    await user.click(await screen.findByTestId('package-delete-5'));
    expect(server.callsTo('DELETE', '/api/v1/packages/5/')).toHaveLength(0);
    await user.click(await screen.findByTestId('package-delete-confirm'));
    expect(await screen.findByTestId('packages-empty')).toBeInTheDocument();
    expect(server.callsTo('DELETE', '/api/v1/packages/5/')).toHaveLength(1);
  });
});
