/**
 * A circuit breaker, so a failing backend degrades prefetch instead of
 * slowing every prompt: after `threshold` consecutive failures a backend is skipped until `resetAfterMs` has passed;
 * then one probe is let through, and a success closes the circuit again.
 */
export class CircuitBreaker {
  private failures = 0;
  private lastFailure = 0;

  constructor(
    readonly name: string,
    private readonly threshold = 3,
    private readonly resetAfterMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  allow(): boolean {
    if (this.failures < this.threshold) return true;
    return this.now() - this.lastFailure > this.resetAfterMs;
  }

  get isOpen(): boolean {
    return !this.allow();
  }

  recordSuccess(): void {
    this.failures = 0;
  }

  recordFailure(): void {
    this.failures++;
    this.lastFailure = this.now();
  }
}
