// The lab core's own check of the text (world-dependent problems such as a root outside the
// world), asked for after typing pauses. Answers for older text are dropped.
import { useEffect, useState } from 'react';
import type { FileProblemInfo } from '../../../shared/api.js';
import type { LabClient } from '../client';

const PAUSE_MS = 400;

/** The core's problems and the text they were found in. */
export interface CoreProblems { text: string; problems: FileProblemInfo[] }

export function useCoreValidation(client: LabClient, text: string, file: string | null, ranks: number | null, enabled: boolean): CoreProblems {
  const [checked, setChecked] = useState<CoreProblems>({ text: '', problems: [] });
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    const timer = setTimeout(() => {
      client.call('validate', { text, file, ranks }).then(
        (problems) => { if (current) setChecked({ text, problems }); },
        (e: Error) => console.warn('validate failed:', e.message),
      );
    }, PAUSE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, text, file, ranks, enabled]);
  return checked;
}
