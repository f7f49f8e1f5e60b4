import { useCallback, useEffect, useRef, useState } from "react";
import { resolveIndexConsent, type ConsentStore } from "../../project/consent.js";

export interface ConsentAnswer {
  granted: boolean;
  remember: boolean;
}

/**
 * Asks once, at start, whether the project may be indexed, unless the
 * answer was remembered. `decided` hears the outcome either way.
 */
export function useIndexConsent(
  consent: ConsentStore,
  decided: (granted: boolean) => void,
): {
  asking: boolean;
  answer: (answer: ConsentAnswer) => void;
} {
  // Known before the first frame, so the question is the first thing drawn and no key reaches the prompt instead.
  const [asking, setAsking] = useState(() => consent.indexConsent() === undefined);
  const resolver = useRef<((answer: ConsentAnswer) => void) | undefined>(undefined);
  const early = useRef<ConsentAnswer | undefined>(undefined);
  const decidedRef = useRef(decided);
  decidedRef.current = decided;

  useEffect(() => {
    const ask = () =>
      new Promise<ConsentAnswer>((resolve) => {
        if (early.current) return resolve(early.current);
        resolver.current = resolve;
        setAsking(true);
      });
    resolveIndexConsent(consent, { yes: false, ask }).then(
      (granted) => decidedRef.current(granted),
      // An unreadable project file: treat as "no" for this run rather than failing the session.
      () => decidedRef.current(false),
    );
  }, [consent]);

  const answer = useCallback((choice: ConsentAnswer) => {
    const resolve = resolver.current;
    resolver.current = undefined;
    setAsking(false);
    if (resolve) resolve(choice);
    else early.current = choice;
  }, []);

  return { asking, answer };
}
