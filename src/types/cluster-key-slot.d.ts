/** cluster-key-slot (ioredis's own slot function) ships no types: CRC16 of the key's hash tag, mod 16384. */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
