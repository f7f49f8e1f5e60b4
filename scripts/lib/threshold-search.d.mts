// Types of scripts/lib/threshold-search.mjs (plain JS, run by node without a build), for the tests that import it.

interface Scale {
  low: number;
  high: number;
  toThreshold?: (value: number) => number;
  target?: number;
  tolerance?: number;
}

export function calibrateThreshold(options: Scale & { rateAt: (threshold: number) => number }): {
  threshold: number;
  value: number;
  tried: Array<{ threshold: number; rate: number }>;
  bounded: boolean;
};

export function calibrateLevels(
  options: Scale & {
    rateAt: (first: number, later: number) => number;
    laterMetAt: (first: number, later: number) => boolean;
    firstMetAt: (first: number, later: number) => boolean;
    never: number;
    step: number;
    firstLow?: number;
    firstHigh?: number;
    laterHigh?: number;
  },
): {
  first: number;
  later: number;
  met: Array<{ first: number; later: number }>;
  tried: Array<{ first: number; later: number; rate: number }>;
  bounded: boolean;
};

export function logit(probability: number): number;
export function sigmoid(value: number): number;
