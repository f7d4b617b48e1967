import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import { predictSnippet } from '../api/snippets';
import { CompressionReport } from './CompressionReport';

describe("a detector's device SDK compression report", () => {
  it('shows mAP@.5 of fp32 and int8, the drop and the box agreement', () => {
    const report = {
      fp32: { size_bytes: 800 * 1024, accuracy: null, map50: 0.912 },
      int8: { size_bytes: 240 * 1024, accuracy: null, map50: 0.905 },
      agreement: 0.97,
      samples: 30,
      calibrationImages: 100,
      detection: { map50Drop: 0.007, boxAgreement: 0.97 },
    };
    renderWithApp(<CompressionReport packageId={4} report={report} />);
    expect(screen.getByText('Test mAP@.5')).toBeInTheDocument();
    expect(screen.getByTestId('compression-fp32-4')).toHaveTextContent('91.2%');
    expect(screen.getByTestId('compression-int8-4')).toHaveTextContent('90.5%');
    expect(screen.getByTestId('compression-map-drop-4')).toHaveTextContent('mAP@.5 drop 0.7%');
    expect(screen.getByTestId('compression-agreement-4')).toHaveTextContent('box agreement 97.0%');
    expect(screen.getByText(/mAP@\.5 on 30 test images/)).toBeInTheDocument();
  });
});

describe("a detector's code snippets", () => {
  it('send the score threshold and the box cap, and read the boxes', () => {
    const options = { predictUrl: 'http://x/api/v1/deployments/7/predict/', deploymentId: 7, baseUrl: 'http://x', detector: true };
    expect(predictSnippet('curl', options)).toContain('-F "score_threshold=0.3"');
    expect(predictSnippet('python', options)).toContain('deployment.predict("street.jpg", score_threshold=0.3, max_detections=100)');
    expect(predictSnippet('python', options)).toContain('for box in answer.boxes:');
    expect(predictSnippet('javascript', options)).toContain("form.append('max_detections', '100');");
    expect(predictSnippet('python', { ...options, detector: false })).toContain('top_k=5');
  });
});
