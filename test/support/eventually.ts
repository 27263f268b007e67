/**
 * Retries an assertion until it passes, for states reached by timers or webhooks.
 * The limit only bounds a broken run; passing runs never wait for it.
 */
export async function eventually<T>(assertion: () => T | Promise<T>, limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
