// Reloads of a live view are coalesced: while one runs, any number of further triggers collapse
// into one more run after it, so a burst of changes costs at most two reloads per connection.
export class Coalescer {
  private running = false;
  private again = false;
  private readonly work: () => Promise<void>;
  private readonly wanted: () => boolean;
  private readonly onError: (err: unknown) => void;

  constructor(work: () => Promise<void>, wanted: () => boolean, onError: (err: unknown) => void) {
    this.work = work;
    this.wanted = wanted;
    this.onError = onError;
  }

  get busy(): boolean {
    return this.running;
  }

  trigger(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.work()
      .catch(this.onError)
      .finally(() => {
        this.running = false;
        if (this.again && this.wanted()) {
          this.again = false;
          this.trigger();
        }
      });
  }
}
