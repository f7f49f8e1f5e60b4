import { Text } from "ink";
import { useEffect, useState } from "react";
import { useTheme } from "../theme.js";

/** Shown while the model works and nothing streams yet: how long, and how to stop it. */
export function ThinkingLine() {
  const theme = useTheme();
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setSeconds((value) => value + 1), 1_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text color={theme.accent}>
      ✻ Working… <Text dimColor>({seconds}s · Esc to interrupt)</Text>
    </Text>
  );
}
