import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { useCsrfCookie } from '@/features/auth';
import { AppProviders } from './AppProviders';
import { AppRoutes } from './AppRoutes';
import { createQueryClient } from './queryClient';

function CsrfBootstrap() {
  useCsrfCookie();
  return null;
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <AppProviders queryClient={queryClient}>
      <BrowserRouter>
        <CsrfBootstrap />
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
}
