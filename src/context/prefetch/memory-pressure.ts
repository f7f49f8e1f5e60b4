import { getHeapStatistics } from "node:v8";
import type { EvictableCache } from "./hot-cache.js";

export type PressureLevel = "normal" | "elevated" | "high" | "critical";

export interface PressureThresholds {
  elevated: number;
  high: number;
  critical: number;
}

/** Shares of the heap limit in use at which each level starts. */
const DEFAULT_PRESSURE_THRESHOLDS: PressureThresholds = { elevated: 0.6, high: 0.75, critical: 0.9 };

/** Share of its default size each level lets a registered cache keep (100/75/50/25 %). */
const CACHE_SHARE: Record<PressureLevel, number> = { normal: 1, elevated: 0.75, high: 0.5, critical: 0.25 };

/**
 * The memory-pressure controller: reads heap use against V8's heap
 * limit, turns it into a level, shrinks registered caches to the level's
 * share (critical also evicts half at once), and tells listeners so they can
 * lower the search tier or pause prefetch.
 */
export class MemoryPressureMonitor {
  private readonly caches = new Map<string, EvictableCache>();
  private readonly listeners: Array<(level: PressureLevel) => void> = [];
  private current: PressureLevel = "normal";

  constructor(
    private readonly sample: () => number = defaultSample,
    private readonly thresholds: PressureThresholds = DEFAULT_PRESSURE_THRESHOLDS,
  ) {}

  get level(): PressureLevel {
    return this.current;
  }

  registerEvictableCache(cache: EvictableCache): void {
    this.caches.set(cache.name, cache);
  }

  onChange(listener: (level: PressureLevel) => void): void {
    this.listeners.push(listener);
  }

  /** Samples memory now; acts only when the level changed. */
  check(): PressureLevel {
    const ratio = this.sample();
    const level: PressureLevel =
      ratio >= this.thresholds.critical
        ? "critical"
        : ratio >= this.thresholds.high
          ? "high"
          : ratio >= this.thresholds.elevated
            ? "elevated"
            : "normal";
    if (level !== this.current) {
      this.current = level;
      for (const cache of this.caches.values()) {
        cache.setMaxSize(Math.floor(cache.defaultMaxSize() * CACHE_SHARE[level]));
        if (level === "critical") cache.evict(0.5);
      }
      for (const listener of this.listeners) listener(level);
    }
    return level;
  }
}

function defaultSample(): number {
  const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics();
  return limit > 0 ? used / limit : 0;
}
