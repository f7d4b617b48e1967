import { useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { CompressionView } from '@/features/compression';

export function CompressionRoute() {
  const compressionId = Number(useParams().compressionId);
  if (!Number.isInteger(compressionId)) return <NotFound />;
  return <CompressionView compressionId={compressionId} />;
}
