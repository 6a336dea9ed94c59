// Point-to-point: one transfer from one rank to another; the sender posts a send, the receiver a recv.

export const P2P_TEACHING =
  'send/recv moves a tensor from one rank to one peer. Both sides must post matching calls (same size and type); ' +
  'inside a group the calls progress together, which is how exchanges and rings avoid deadlock. busbw equals algbw.';

export const p2pAlgBytes = (count: number, elementBytes: number) => count * elementBytes;
export const p2pBusFactor = () => 1;
