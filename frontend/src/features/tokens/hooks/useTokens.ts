import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken, tokenKeys } from '../api/tokens';

export function useTokens() {
  return useQuery({ queryKey: tokenKeys.list(), queryFn: listTokens });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}
