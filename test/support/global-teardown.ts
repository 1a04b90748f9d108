/** Stops what the global setup started: the private redis-server, or every node of the test cluster by its pid. */
export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as Record<string, unknown>).__TEST_REDIS__ as { stop(): Promise<void> } | undefined;
  await started?.stop();
}
