import { useStdout } from "ink";
import { useEffect, useState } from "react";

/** The terminal's width, following resizes (the status line shortens to fit). */
export function useTerminalWidth(): number {
  const { stdout } = useStdout();
  const [columns, setColumns] = useState(stdout.columns || 80);
  useEffect(() => {
    const onResize = () => setColumns(stdout.columns || 80);
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return columns;
}
