// CLAB_TRACE: the core's own moments on stderr, milliseconds since the process started.
export const coreTrace = (text: string): void => {
  if (process.env.CLAB_TRACE) process.stderr.write(`[trace] core ${performance.now().toFixed(1)} ms: ${text}\n`);
};
