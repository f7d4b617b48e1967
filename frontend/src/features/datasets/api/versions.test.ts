import { describe, expect, it } from 'vitest';
import { validateRatios } from './versions';

describe('validateRatios', () => {
  it('accepts ratios that add up to 1 with a positive training share', () => {
    expect(validateRatios({ train_ratio: 0.7, val_ratio: 0.15, test_ratio: 0.15 })).toEqual({});
  });

  it('names the field that is wrong', () => {
    expect(validateRatios({ train_ratio: 0.8, val_ratio: 0.3, test_ratio: 0.1 }).test_ratio).toMatch(/add up to 1 \(now 1.2\)/);
    expect(validateRatios({ train_ratio: 0, val_ratio: 0.5, test_ratio: 0.5 }).train_ratio).toMatch(/above 0/);
    expect(validateRatios({ train_ratio: 1.5, val_ratio: -0.5, test_ratio: 0 })).toEqual({ train_ratio: 'Between 0 and 1', val_ratio: 'Between 0 and 1' });
  });
});
