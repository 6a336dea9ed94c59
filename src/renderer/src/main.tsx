import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { App } from './App';
import { createLabClient, LabClientProvider } from './client';
import './styles.css';

// The page's CSP forbids eval; zod must not try it.
z.config({ jitless: true });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LabClientProvider client={createLabClient()}>
      <App />
    </LabClientProvider>
  </StrictMode>,
);
