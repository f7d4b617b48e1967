import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { COMPRESSION } from './compressionFixtures';
import { CompressionsList } from './CompressionsList';

describe('CompressionsList', () => {
  it("lists a version's compression runs with each variant's size and drop, linked to the report", async () => {
    const server = fakeApi({ 'GET /api/v1/compressions/': page([{ ...COMPRESSION, status: 'succeeded' }]) });
    renderWithApp(<CompressionsList modelVersionId={11} />);
    const row = await screen.findByTestId('compressions-list-7');
    expect(row).toHaveTextContent('Compression #7');
    expect(row).toHaveTextContent('int8: 100 kB, −0.5 pts');
    expect(screen.getByRole('link', { name: 'Compression #7' })).toHaveAttribute('href', '/compressions/7');
    expect(server.calls[0].search.get('parent')).toBe('11');
  });

  it('shows nothing for a version never compressed', async () => {
    const server = fakeApi({ 'GET /api/v1/compressions/': page([]) });
    renderWithApp(<CompressionsList modelVersionId={11} />);
    await waitFor(() => expect(server.calls).toHaveLength(1));
    expect(screen.queryByTestId('compressions-list')).not.toBeInTheDocument();
  });
});
