/**
 * Tells this process's listeners (the live stream, webhook delivery) that a bloc has new
 * events, as soon as they are committed; listeners in other processes find them by polling.
 */
export class EventSignal {
  private readonly listeners = new Set<(blocId: string) => void>();

  appended(blocId: string): void {
    for (const listener of this.listeners) listener(blocId);
  }

  /** Returns the function that stops listening. */
  listen(listener: (blocId: string) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }
}
