// What to try next when NCCL fails: one hint per kind of failure, chosen by the error's code (the
// ncclResult_t name the addon gives, e.g. NCCL_ERROR_SYSTEM_ERROR) and by the words in NCCL's own
// messages (the error text and the rank's `NCCL WARN` lines). Pure: the core composes the message.

/** What marks one of NCCL's warning lines in a rank's output (NCCL_DEBUG=WARN, which ranks set). */
const NCCL_WARN_MARK = ' NCCL WARN ';

export function isNcclWarnLine(text: string): boolean {
  return text.includes(NCCL_WARN_MARK);
}

/** An NCCL result or a CUDA error: the failures NCCL's transports and these hints are about. */
export function isGpuLibraryCode(code: string): boolean {
  return code.startsWith('NCCL_') || code.startsWith('cuda');
}

interface NcclHint {
  /** The codes it applies to; undefined: any NCCL or CUDA code. */
  codes?: readonly string[];
  /** Words in NCCL's messages it applies to; undefined: any. */
  mentions?: RegExp;
  text: string;
}

// Intra-host transports and what names them in NCCL's messages (transport/p2p.cc, shm.cc, cudaIpc…).
const TRANSPORT_WORDS = /\bP2P\b|p2p\.cc|\bSHM\b|shm\.cc|transport|cudaIpc|NVLink|\bNVLS\b|peer access/i;

/** In the order they are shown: the likeliest first. */
const HINTS: readonly NcclHint[] = [
  {
    codes: ['NCCL_ERROR_REMOTE_ERROR'],
    text: 'another rank (or the connection to it) failed first: its own error, in its log lines, is the cause; this rank only saw its peer go away',
  },
  {
    mentions: TRANSPORT_WORDS,
    text:
      'a transport between GPUs failed; run again with one turned off to see which: NCCL_P2P_DISABLE=1 (no direct GPU-to-GPU copies), ' +
      'NCCL_P2P_LEVEL=NVL (direct copies over NVLink only; LOC: none), NCCL_SHM_DISABLE=1 (no copies through host shared memory)',
  },
  {
    codes: ['NCCL_ERROR_INVALID_USAGE', 'NCCL_ERROR_INVALID_ARGUMENT'],
    text:
      'the usual causes: ranks that disagree on a call (a different count, dtype, reduce op or root on one rank, a send whose recv names ' +
      'another peer or count), two ranks on one GPU, or an NCCL_* setting NCCL rejects; the NCCL WARN lines name what it refused',
  },
  {
    codes: ['NCCL_ERROR_SYSTEM_ERROR'],
    text:
      'a system call inside NCCL failed (sockets, shared memory, pinned memory): run again with NCCL_DEBUG=INFO to see which; in a ' +
      'container /dev/shm is often too small for NCCL (docker run --shm-size=1g or --ipc=host), and ulimit -l (locked memory) and ulimit -n (open files) can be too low',
  },
  {
    codes: ['NCCL_ERROR_UNHANDLED_CUDA_ERROR'],
    text: "a CUDA call inside NCCL failed: the NCCL WARN lines name the call and CUDA's error (out of memory and peer access are the usual ones)",
  },
];

/**
 * The hints that apply to a failure with `code` whose NCCL messages are `texts` (the error's
 * message, the rank's NCCL WARN lines), likeliest first; none for the lab's own codes.
 */
export function ncclHints(code: string, texts: readonly string[]): string[] {
  if (!isGpuLibraryCode(code)) return [];
  return HINTS.filter((h) => (!h.codes || h.codes.includes(code)) && (!h.mentions || texts.some((t) => h.mentions!.test(t)))).map(
    (h) => h.text,
  );
}
