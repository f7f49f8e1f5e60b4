import { Box, Text } from "ink";
import type { SearchResponseJson } from "../../cli/commands/search-command.js";
import { useTheme } from "../theme.js";

/** `/search` results, laid out as `sylk search` prints them. */
export function SearchResults({ response }: { response: SearchResponseJson }) {
  const theme = useTheme();
  if (response.results.length === 0) return <Text>No results for "{response.query}".</Text>;
  return (
    <Box flexDirection="column">
      {response.results.map((result, index) => {
        const signals = Object.entries(result.signals)
          .map(([name, evidence]) => `${name} #${evidence.rank}`)
          .join(" · ");
        return (
          <Box key={index} flexDirection="column" marginBottom={1}>
            <Text>
              {index + 1}. <Text color={theme.accent}>{`${result.path}:${result.startLine}-${result.endLine}`}</Text>{" "}
              <Text dimColor>({signals})</Text>
            </Text>
            <Box marginLeft={4}>
              <Text dimColor>{result.snippet}</Text>
            </Box>
          </Box>
        );
      })}
      <Text dimColor>
        {response.results.length} {response.results.length === 1 ? "result" : "results"} in {Math.round(response.tookMs)} ms
      </Text>
    </Box>
  );
}
