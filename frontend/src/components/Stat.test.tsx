import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import { Stat } from './Stat';

describe('Stat', () => {
  it('shows the label and puts the test id on the value alone', () => {
    renderWithApp(<Stat label="Trials" value="3/10" testId="trials" />);
    expect(screen.getByText('Trials')).toBeInTheDocument();
    expect(screen.getByTestId('trials')).toHaveTextContent(/^3\/10$/);
  });

  it('renders a number and the hint under it only when given', () => {
    const { container } = renderWithApp(<Stat label="MAE" value={0} testId="mae" hint="mean absolute error" />);
    expect(screen.getByTestId('mae')).toHaveTextContent(/^0$/);
    expect(screen.getByText('mean absolute error')).toBeInTheDocument();
    expect(container.querySelectorAll('p')).toHaveLength(3);
  });

  it('has no hint line without a hint', () => {
    const { container } = renderWithApp(<Stat label="Calls" value="12" testId="calls" size="xl" />);
    expect(container.querySelectorAll('p')).toHaveLength(2);
  });
});
