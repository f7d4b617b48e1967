import { useMutation, useQueryClient } from '@tanstack/react-query';
import { retrain, type RetrainBody, type RetrainSource } from './api';

export function useRetrain(source: RetrainSource) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RetrainBody) => retrain(source, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
    meta: { handlesOwnErrors: true },
  });
}
